import { sql } from "drizzle-orm";
import type { Db } from "../../src/db/client.ts";
import { bearer, readJson } from "./app.ts";

/**
 * Publishes a version (of the whole product, or with `benefitId` of that benefit) through a listening
 * server, as a pipeline does (multipart); returns the response.
 */
export function publishMultipart(
  base: string,
  token: string,
  productId: number,
  version: { name: string; bytes: string | Uint8Array; fileName?: string; benefitId?: number },
): Promise<Response> {
  const form = new FormData();
  form.append("version_name", version.name);
  form.append("title", "t");
  form.append("changelog", "c");
  form.append("file", new File([version.bytes], version.fileName ?? "release.bin"));
  const benefit = version.benefitId === undefined ? "" : `/benefits/${version.benefitId}`;
  return fetch(`${base}/api/products/${productId}${benefit}/versions`, {
    method: "POST",
    headers: bearer(token),
    body: form,
  });
}

/** The published Version's JSON (the publish must succeed). */
export async function publishedVersion(...args: Parameters<typeof publishMultipart>) {
  const response = await publishMultipart(...args);
  if (response.status !== 201)
    throw new Error(`publish answered ${response.status}: ${await response.text()}`);
  return (await readJson(response)).data;
}

/**
 * Makes the database refuse to insert a version named `name`, as a database failing mid-publish
 * would: after the file was received and moved to its key, inside the version's transaction.
 * Returns what lifts the refusal.
 */
export async function refuseVersionNamed(db: Db, name: string): Promise<() => Promise<void>> {
  if (!/^[\w.-]+$/.test(name)) throw new Error(`not a plain version name: ${name}`);
  await db.execute(
    sql.raw(`CREATE FUNCTION refuse_version() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.version_number = TG_ARGV[0] THEN RAISE EXCEPTION 'the test refuses this version'; END IF;
        RETURN NEW;
      END $$`),
  );
  await db.execute(
    sql.raw(`CREATE TRIGGER refuse_version BEFORE INSERT ON versions
      FOR EACH ROW EXECUTE FUNCTION refuse_version('${name}')`),
  );
  return async () => {
    await db.execute(sql.raw("DROP TRIGGER refuse_version ON versions"));
    await db.execute(sql.raw("DROP FUNCTION refuse_version()"));
  };
}
