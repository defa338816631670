import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { selectRows } from "../src/db/rows.ts";
import { licenses } from "../src/db/schema/index.ts";
import { generateLicenseKey } from "../src/features/licenses/keys.ts";
import { bearer, readJson } from "./helpers/app.ts";
import { spawnDepot, startServer } from "./helpers/cli.ts";
import { freshDatabase, onPostgres, type TestDatabase } from "./helpers/db.ts";
import { createProduct, createUser, tokenFor } from "./helpers/factories.ts";
import { publishMultipart } from "./helpers/publish.ts";
import { startS3, type TestS3 } from "./helpers/s3.ts";

/**
 * Several instances (docs/operators.md, Running several instances): two `depot serve --no-workers` processes and
 * one `depot worker` on one PostgreSQL database and one bucket. A version published through the first
 * downloads whole and by range from the second, its holder gets exactly one notification, and an
 * instance killed (SIGKILL) mid-upload leaves no version while the other keeps serving.
 */

setDefaultTimeout(60_000);

const MiB = 1024 * 1024;
const APP_URL = "http://depot.example";
let s3: TestS3;
let fresh: TestDatabase;
const dirs: string[] = [];
const processes: { kill(signal?: number | NodeJS.Signals): void; exited: Promise<number> }[] = [];
let env: Record<string, string>;

const sha256 = (bytes: Uint8Array | ArrayBuffer) =>
  new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
const randomBytes = (size: number) => {
  const bytes = new Uint8Array(size);
  for (let offset = 0; offset < size; offset += 65536)
    crypto.getRandomValues(bytes.subarray(offset, Math.min(size, offset + 65536)));
  return bytes;
};
/** Each instance its own DATA_DIR: nothing on local disk is shared. */
const instanceEnv = () => {
  const dir = mkdtempSync(join(tmpdir(), "depot-instance-"));
  dirs.push(dir);
  return { ...env, DATA_DIR: dir };
};
const serve = async () => {
  const server = await startServer(instanceEnv(), 30_000, ["serve", "--no-workers"]);
  processes.push(server.proc);
  return server;
};

beforeAll(async () => {
  if (!onPostgres) return;
  s3 = await startS3();
  fresh = await freshDatabase();
  env = {
    DATABASE_URL: fresh.url ?? "",
    APP_KEY: "several-instances-share-this-application-key",
    APP_URL,
    LOG_LEVEL: "error",
    ...s3.env("shared"),
  };
});
afterAll(async () => {
  for (const proc of processes) proc.kill("SIGKILL");
  await Promise.all(processes.map((proc) => proc.exited));
  await fresh?.drop();
  await s3?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!onPostgres)("two servers and a worker on one database and one bucket", () => {
  test("publish on one, download from the other; one notification; a SIGKILL mid-upload harms neither", async () => {
    const ctx = { db: fresh.database.db };
    const vendor = await createUser(ctx, { role: "vendor" });
    const vendorToken = await tokenFor(ctx, vendor);
    const product = await createProduct(ctx, vendor);
    const holder = await createUser(ctx, { name: "Holder" });
    const holderToken = await tokenFor(ctx, holder);
    await ctx.db.insert(licenses).values({
      id: Bun.randomUUIDv7(),
      key: generateLicenseKey(),
      userId: holder.id,
      creatorId: vendor.id,
      productId: product.id,
      maxIps: 1,
    });

    const first = await serve();
    const second = await serve();
    const worker = spawnDepot(["worker"], instanceEnv());
    processes.push(worker);

    const bytes = randomBytes(9 * MiB + 7);
    const published = await publishMultipart(first.url, vendorToken, product.id, { name: "3.0.0", bytes });
    expect(published.status).toBe(201);
    const version = (await readJson(published)).data;
    const onSecond = version.download_url.replace(APP_URL, second.url);

    const whole = await fetch(onSecond, { headers: bearer(holderToken) });
    expect(whole.status).toBe(200);
    expect(whole.headers.get("etag")).toBe(`"${sha256(bytes)}"`);
    expect(sha256(await whole.arrayBuffer())).toBe(sha256(bytes));
    const start = 8 * MiB - 3;
    const range = await fetch(onSecond, {
      headers: { ...bearer(holderToken), range: `bytes=${start}-${start + 9}` },
    });
    expect(range.status).toBe(206);
    expect(range.headers.get("content-range")).toBe(`bytes ${start}-${start + 9}/${bytes.length}`);
    expect(new Uint8Array(await range.arrayBuffer())).toEqual(bytes.subarray(start, start + 10));

    // The worker fans the version out: the holder sees exactly one notification, on either server.
    const notifications = async (base: string) => {
      const response = await fetch(`${base}/api/notifications`, { headers: bearer(holderToken) });
      expect(response.status).toBe(200);
      return (await readJson(response)).data as { data: { version_number: string } }[];
    };
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline && (await notifications(second.url)).length === 0) await Bun.sleep(200);
    await Bun.sleep(1000); // a duplicate would have arrived by now
    const seen = await notifications(first.url);
    expect(seen.map((n) => n.data.version_number)).toEqual(["3.0.0"]);
    const rows = await selectRows<{ count: number }>(
      ctx.db,
      sql`SELECT count(*)::int AS count FROM notifications WHERE version_id = ${version.id}`,
    );
    expect(rows).toEqual([{ count: 1 }]);

    // The first server dies mid-upload: no version, and the second goes on serving and publishing.
    const boundary = "killed";
    const socket = connect(first.port, "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.on("error", () => {});
    socket.write(
      `POST /api/products/${product.id}/versions HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
        `Authorization: Bearer ${vendorToken}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\n` +
        `Content-Length: ${20 * MiB}\r\n\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="version_name"\r\n\r\n4.0.0\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n\r\n`,
    );
    socket.write(randomBytes(9 * MiB));
    await Bun.sleep(500);
    first.proc.kill("SIGKILL");
    expect(await first.proc.exited).not.toBe(0);
    socket.destroy();

    const again = await fetch(onSecond, { headers: bearer(holderToken) });
    expect(again.status).toBe(200);
    expect(sha256(await again.arrayBuffer())).toBe(sha256(bytes));
    const next = await publishMultipart(second.url, vendorToken, product.id, {
      name: "3.0.1",
      bytes: "patch",
    });
    expect(next.status).toBe(201);
    const names = await selectRows<{ version_number: string }>(
      ctx.db,
      sql`SELECT version_number FROM versions ORDER BY id`,
    );
    expect(names.map((row) => row.version_number)).toEqual(["3.0.0", "3.0.1"]);
  });
});
