import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { selectRows } from "../src/db/rows.ts";
import { bearer, readJson, recordingLogger, startTestApp, type TestApp } from "./helpers/app.ts";
import { createProduct, createUser, tokenFor } from "./helpers/factories.ts";

/**
 * A full disk under STORAGE_DIR: a real 4 MiB tmpfs, so the kernel itself answers short writes and
 * ENOSPC. Publishing 8 MB in either form must answer a JSON 507, log it at `error`, and leave no file,
 * no version row and no queued notification. Mounting needs root (CI runs as root), or run the suite
 * as `unshare -rm npm test`.
 */

const MiB = 1024 * 1024;
let t: TestApp;
let base: string;
let storage: string;
let token: string;
let product: { id: number };
const recorder = recordingLogger("error");

beforeAll(async () => {
  storage = mkdtempSync(join(tmpdir(), "depot-full-"));
  const mount = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", storage], {
    stderr: "pipe",
  });
  if (mount.exitCode !== 0) {
    throw new Error(
      `mounting a 4 MiB tmpfs failed (${mount.stderr.toString().trim()}): run as root or under \`unshare -rm\``,
    );
  }
  t = await startTestApp({ jobs: "send", env: { STORAGE_DIR: storage }, log: recorder.log });
  base = t.listen();
  const vendor = await createUser(t.ctx, { role: "vendor" });
  token = await tokenFor(t.ctx, vendor);
  product = await createProduct(t.ctx, vendor);
});
afterAll(async () => {
  await t?.close();
  Bun.spawnSync(["umount", storage]);
  rmSync(storage, { recursive: true, force: true });
});

const randomBytes = (size: number) => {
  const bytes = new Uint8Array(size);
  for (let offset = 0; offset < size; offset += 65536)
    crypto.getRandomValues(bytes.subarray(offset, offset + 65536));
  return bytes;
};

/** Every regular file under STORAGE_DIR (the store's own empty folders do not count). */
function filesIn(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

const versionsPath = () => `/api/products/${product.id}/versions`;

async function expectNothingKept() {
  expect(filesIn(storage)).toEqual([]);
  const list = await fetch(`${base}${versionsPath()}`, { headers: bearer(token) });
  expect((await readJson(list)).data).toEqual([]);
  const jobs = await selectRows<{ n: number }>(
    t.ctx.db,
    sql`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'version.published'`,
  );
  expect(jobs[0]?.n).toBe(0);
}

async function expect507(response: Response) {
  expect(response.status).toBe(507);
  expect(response.headers.get("content-type")).toContain("application/json");
  expect(await readJson(response)).toEqual({
    message: "There is not enough storage space left for this file.",
  });
  const logged = recorder.lines.filter((line) => line.msg === "release storage failed");
  expect(logged.length).toBeGreaterThan(0);
  expect(logged.at(-1)).toMatchObject({ level: "error", code: "ENOSPC" });
  recorder.lines.length = 0;
}

describe("a full STORAGE_DIR", () => {
  test("the JSON (base64) form: 507, logged, no file, no row, no job", async () => {
    const response = await fetch(`${base}${versionsPath()}`, {
      method: "POST",
      headers: { ...bearer(token), "content-type": "application/json" },
      body: JSON.stringify({
        version_name: "8.0.0",
        title: "Too big for the disk",
        changelog: "-",
        file: { filename: "big.bin", content: Buffer.from(randomBytes(8 * MiB)).toString("base64") },
      }),
    });
    await expect507(response);
    await expectNothingKept();
  });

  test("the multipart form: 507 (not a 400), logged, no file, no row, no job", async () => {
    const form = new FormData();
    form.append("version_name", "8.0.1");
    form.append("title", "Too big for the disk");
    form.append("changelog", "-");
    form.append("file", new File([randomBytes(8 * MiB)], "big.bin"));
    const response = await fetch(`${base}${versionsPath()}`, {
      method: "POST",
      headers: bearer(token),
      body: form,
    });
    await expect507(response);
    await expectNothingKept();
  });

  test("afterwards a file that fits publishes and downloads intact", async () => {
    const bytes = randomBytes(MiB);
    const form = new FormData();
    form.append("version_name", "1.0.0");
    form.append("title", "Fits");
    form.append("changelog", "-");
    form.append("file", new File([bytes], "small.bin"));
    const response = await fetch(`${base}${versionsPath()}`, {
      method: "POST",
      headers: bearer(token),
      body: form,
    });
    expect(response.status).toBe(201);
    const { data } = await readJson(response);
    expect(data.file_size).toBe(MiB);
    const download = await fetch(data.download_url.replace("http://depot.test", base), {
      headers: bearer(token),
    });
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(bytes);
  });
});

describe("a resumable upload and the free space", () => {
  const create = (length: number) =>
    fetch(`${base}/api/uploads`, {
      method: "POST",
      headers: { ...bearer(token), "tus-resumable": "1.0.0", "upload-length": String(length) },
    });
  const uploadRows = async () =>
    (await selectRows<{ n: number }>(t.ctx.db, sql`SELECT count(*)::int AS n FROM uploads`))[0]?.n;

  test("an Upload-Length larger than STORAGE_DIR's free space: 413 that creates nothing; one that fits: 201", async () => {
    const free = (await t.ctx.releases.freeBytes()) ?? 0;
    expect(free).toBeGreaterThan(MiB);
    expect(free).toBeLessThan(4 * MiB);
    const before = filesIn(storage);

    const tooLarge = await create(4 * MiB);
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.headers.get("content-type")).toContain("application/json");
    expect(await readJson(tooLarge)).toEqual({
      message: `There is not enough storage space left for a file of ${4 * MiB} bytes.`,
    });
    expect(await uploadRows()).toBe(0);
    expect(filesIn(storage)).toEqual(before);

    const fits = await create(MiB);
    expect(fits.status).toBe(201);
    const removed = await fetch(`${base}${fits.headers.get("location")}`, {
      method: "DELETE",
      headers: { ...bearer(token), "tus-resumable": "1.0.0" },
    });
    expect(removed.status).toBe(204);
  });
});
