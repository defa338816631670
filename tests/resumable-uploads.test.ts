import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { eq, isNull } from "drizzle-orm";
import { Upload } from "tus-js-client";
import { uploads, versions } from "../src/db/schema/index.ts";
import { sweepExpiredUploads } from "../src/features/uploads/service.ts";
import { bearer, readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { randomBytes, sha256 } from "./helpers/bytes.ts";
import { createBenefit, createOption, createProduct, createUser, tokenFor } from "./helpers/factories.ts";
import { startS3, type TestS3 } from "./helpers/s3.ts";
import { startTcpProxy } from "./helpers/tcp-proxy.ts";

/**
 * Resumable uploads (tus 1.0.0) through listening servers, on local disk and on object storage (s3rver):
 * the official tus-js-client uploads in chunks and resumes after the connection is dropped mid-upload;
 * a finished upload is published with `upload_id` (once; a retried publish is recognised) and
 * downloads as the same bytes; the protocol's refusals (412, 409, 413, 415, 460, 404, 410) come with
 * JSON messages and change nothing; termination and the expiry sweep remove what was stored.
 */

setDefaultTimeout(30_000);

const KiB = 1024;
const MiB = 1024 * KiB;
const MAX_UPLOAD = 16 * MiB;

const base64Sha256 = (bytes: Uint8Array) =>
  Buffer.from(new Bun.CryptoHasher("sha256").update(bytes).digest()).toString("base64");
const TUS = { "tus-resumable": "1.0.0" };
const CHUNK = { ...TUS, "content-type": "application/offset+octet-stream" };

interface World {
  t: TestApp;
  base: string;
  token: string;
  product: { id: number };
}

async function world(env: Record<string, string> = {}): Promise<World> {
  const t = await startTestApp({ jobs: "send", env: { MAX_UPLOAD_BYTES: String(MAX_UPLOAD), ...env } });
  const base = t.listen();
  const vendor = await createUser(t.ctx, { role: "vendor" });
  return { t, base, token: await tokenFor(t.ctx, vendor), product: await createProduct(t.ctx, vendor) };
}

/** Uploads `bytes` with tus-js-client; resolves with the upload's id and the offsets HEAD answered. */
function tusUpload(
  endpoint: string,
  token: string,
  bytes: Uint8Array,
  options: { chunkSize?: number; fileName?: string; overridePatchMethod?: boolean } = {},
): Promise<{ id: string; resumedAt: number[] }> {
  const resumedAt: number[] = [];
  return new Promise((resolve, reject) => {
    const upload = new Upload(Buffer.from(bytes), {
      endpoint: `${endpoint}/api/uploads`,
      headers: bearer(token),
      metadata: { filename: options.fileName ?? "app-1.0.zip", filetype: "application/zip" },
      chunkSize: options.chunkSize ?? Number.POSITIVE_INFINITY,
      overridePatchMethod: options.overridePatchMethod ?? false,
      // The first retry waits for the server to notice the dropped request and commit what it got.
      retryDelays: [500, 1000, 2000],
      onAfterResponse(request, response) {
        if (request.getMethod() === "HEAD") resumedAt.push(Number(response.getHeader("upload-offset")));
      },
      onError: reject,
      onSuccess: () => resolve({ id: (upload.url ?? "").split("/").at(-1) ?? "", resumedAt }),
    });
    upload.start();
  });
}

function publishFromUpload(w: World, uploadId: unknown, fields: Record<string, unknown> = {}, path?: string) {
  return fetch(`${w.base}${path ?? `/api/products/${w.product.id}/versions`}`, {
    method: "POST",
    headers: { ...bearer(w.token), "content-type": "application/json" },
    body: JSON.stringify({
      version_name: "1.0.0",
      title: "First",
      changelog: "c",
      upload_id: uploadId,
      ...fields,
    }),
  });
}

/** POST /api/uploads with the vendor's token; the new upload's path. */
async function create(w: World, length: number, headers: Record<string, string> = {}): Promise<string> {
  const response = await fetch(`${w.base}/api/uploads`, {
    method: "POST",
    headers: { ...bearer(w.token), ...TUS, "upload-length": String(length), ...headers },
  });
  expect(response.status).toBe(201);
  return response.headers.get("location") ?? "";
}

const patch = (
  w: World,
  path: string,
  offset: number,
  bytes: Uint8Array,
  headers: Record<string, string> = {},
) =>
  fetch(`${w.base}${path}`, {
    method: "PATCH",
    headers: { ...bearer(w.token), ...CHUNK, "upload-offset": String(offset), ...headers },
    body: bytes,
  });

const head = (w: World, path: string, token = w.token) =>
  fetch(`${w.base}${path}`, { method: "HEAD", headers: { ...bearer(token), ...TUS } });

async function uploadRow(w: World, id: string) {
  const [row] = await w.t.ctx.db.select().from(uploads).where(eq(uploads.id, id));
  return row ?? null;
}

const stores: { name: string; env: () => Record<string, string> }[] = [
  { name: "local disk", env: () => ({}) },
  { name: "object storage", env: () => s3.env("depot") },
];
let s3: TestS3;
beforeAll(async () => {
  s3 = await startS3();
});
afterAll(() => s3?.close());

describe.each(stores)("tus on $name", (store) => {
  let w: World;
  beforeAll(async () => {
    w = await world(store.env());
  });
  afterAll(() => w.t.close());

  test("OPTIONS says what the server speaks: version, extensions, largest upload, checksum algorithm", async () => {
    const response = await fetch(`${w.base}/api/uploads`, { method: "OPTIONS" });
    expect(response.status).toBe(204);
    expect(Object.fromEntries(response.headers)).toMatchObject({
      "tus-resumable": "1.0.0",
      "tus-version": "1.0.0",
      "tus-extension": "creation,creation-with-upload,termination,expiration,checksum",
      "tus-max-size": String(MAX_UPLOAD),
      "tus-checksum-algorithm": "sha256",
    });
  });

  test("tus-js-client uploads in chunks; publishing the upload makes a version that downloads as the same bytes", async () => {
    const bytes = randomBytes(3 * MiB + 17);
    const { id } = await tusUpload(w.base, w.token, bytes, { chunkSize: MiB });
    expect(await uploadRow(w, id)).toMatchObject({
      received: bytes.length,
      length: bytes.length,
      sha256: sha256(bytes),
      fileName: "app-1.0.zip",
      contentType: "application/zip",
      consumedAt: null,
    });

    const response = await publishFromUpload(w, id);
    expect(response.status).toBe(201);
    const version = (await readJson(response)).data;
    expect(version).toMatchObject({
      version_number: "1.0.0",
      file_name: "app-1.0.zip",
      file_size: bytes.length,
      sha256: sha256(bytes),
    });
    const download = await fetch(version.download_url.replace("http://depot.test", w.base), {
      headers: bearer(w.token),
    });
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("application/zip");
    expect(download.headers.get("content-disposition")).toBe('attachment; filename="app-1.0.zip"');
    expect(sha256(await download.arrayBuffer())).toBe(sha256(bytes));

    // A retried publish (the pipeline did not hear the answer) is the same version; another name is refused.
    const again = await publishFromUpload(w, id);
    expect(again.status).toBe(200);
    expect((await readJson(again)).data.id).toBe(version.id);
    const other = await publishFromUpload(w, id, { version_name: "1.0.1" });
    expect(other.status).toBe(422);
    expect(await readJson(other)).toEqual({
      message: "The upload has already been published.",
      errors: { upload_id: ["The upload has already been published."] },
    });
    expect((await uploadRow(w, id))?.consumedAt).toBeInstanceOf(Date);
  });

  test("the connection dropped mid-upload: tus-js-client asks the offset and sends only the rest", async () => {
    const bytes = randomBytes(4 * MiB);
    const proxy = await startTcpProxy({ hostname: "127.0.0.1", port: Number(new URL(w.base).port) });
    proxy.faultTowardsServer(2 * MiB, "drop");
    try {
      // One request for the whole file on disk (the disk keeps what arrived); 1 MiB requests on object
      // storage, where a request cut short keeps nothing.
      const chunkSize = store.name === "local disk" ? Number.POSITIVE_INFINITY : MiB;
      const { id, resumedAt } = await tusUpload(`http://127.0.0.1:${proxy.port}`, w.token, bytes, {
        chunkSize,
      });
      expect(proxy.faulted).toBe(true);
      expect(resumedAt.length).toBeGreaterThan(0);
      // Resumed from where the server had got to, not from the start.
      expect(resumedAt[0]).toBeGreaterThanOrEqual(MiB);
      expect(resumedAt[0]).toBeLessThan(bytes.length);
      expect((await uploadRow(w, id))?.sha256).toBe(sha256(bytes));

      const response = await publishFromUpload(w, id, { version_name: "2.0.0" });
      expect(response.status).toBe(201);
      const version = (await readJson(response)).data;
      const download = await fetch(version.download_url.replace("http://depot.test", w.base), {
        headers: bearer(w.token),
      });
      expect(sha256(await download.arrayBuffer())).toBe(sha256(bytes));
    } finally {
      proxy.cut();
    }
  });

  test("a chunk that fails its checksum answers 460 and is not kept; sent again it is", async () => {
    const bytes = randomBytes(300 * KiB);
    const path = await create(w, bytes.length);
    const first = bytes.subarray(0, 100 * KiB);
    const wrong = await patch(w, path, 0, first, {
      "upload-checksum": `sha256 ${base64Sha256(bytes.subarray(1, 2))}`,
    });
    expect(wrong.status).toBe(460);
    expect(wrong.headers.get("tus-resumable")).toBe("1.0.0");
    expect(await readJson(wrong)).toEqual({
      message: "The checksum of the request body does not match Upload-Checksum; nothing of it was kept.",
    });
    expect((await head(w, path)).headers.get("upload-offset")).toBe("0");

    const right = await patch(w, path, 0, first, { "upload-checksum": `sha256 ${base64Sha256(first)}` });
    expect(right.status).toBe(204);
    expect(right.headers.get("upload-offset")).toBe(String(first.length));
    const rest = await patch(w, path, first.length, bytes.subarray(first.length), {
      "upload-checksum": `sha256 ${base64Sha256(bytes.subarray(first.length))}`,
    });
    expect(rest.status).toBe(204);
    expect(rest.headers.get("upload-offset")).toBe(String(bytes.length));
    expect(rest.headers.has("upload-expires")).toBe(false); // finished: nothing left to expire
    expect((await uploadRow(w, path.split("/").at(-1) ?? ""))?.sha256).toBe(sha256(bytes));
  });

  test("termination removes the upload and everything it stored", async () => {
    const path = await create(w, 200 * KiB);
    const id = path.split("/").at(-1) ?? "";
    expect((await patch(w, path, 0, randomBytes(50 * KiB))).status).toBe(204);
    const response = await fetch(`${w.base}${path}`, {
      method: "DELETE",
      headers: { ...bearer(w.token), ...TUS },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get("tus-resumable")).toBe("1.0.0");
    expect((await head(w, path)).status).toBe(404);
    expect(await uploadRow(w, id)).toBeNull();
    if (store.name === "local disk") {
      expect(existsSync(join(w.t.ctx.config.storageDir, ".uploads", id))).toBe(false);
    } else {
      expect((await s3.keys()).filter((key) => key.includes(id))).toEqual([]);
    }
  });
});

describe("X-HTTP-Method-Override (behind a proxy that lets only GET and POST through)", () => {
  let w: World;
  beforeAll(async () => {
    w = await world();
  });
  afterAll(() => w.t.close());

  test("tus-js-client's overridePatchMethod sends every chunk as POST, and the upload publishes", async () => {
    const bytes = randomBytes(2 * MiB + 5);
    const methods: string[] = [];
    const proxy = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      // Refuses PATCH, as such a proxy does; passes everything else on to depot.
      async fetch(request) {
        methods.push(request.method);
        if (request.method === "PATCH") return new Response("Method Not Allowed", { status: 405 });
        const url = new URL(request.url);
        return fetch(`${w.base}${url.pathname}${url.search}`, {
          method: request.method,
          headers: request.headers,
          body: request.body,
          redirect: "manual",
        } as RequestInit);
      },
    });
    try {
      const { id } = await tusUpload(`http://127.0.0.1:${proxy.port}`, w.token, bytes, {
        chunkSize: MiB,
        overridePatchMethod: true,
      });
      expect(methods).toEqual(["POST", "POST", "POST", "POST"]);
      expect(await uploadRow(w, id)).toMatchObject({ received: bytes.length, sha256: sha256(bytes) });
      expect((await publishFromUpload(w, id)).status).toBe(201);
    } finally {
      proxy.stop(true);
    }
  });

  test("POST with DELETE terminates; POST without an override is a 405 that changes nothing", async () => {
    const path = await create(w, 100 * KiB);
    const id = path.split("/").at(-1) ?? "";
    const post = (headers: Record<string, string>, bytes?: Uint8Array) =>
      fetch(`${w.base}${path}`, {
        method: "POST",
        headers: { ...bearer(w.token), ...TUS, ...headers },
        body: bytes,
      });

    const overrides: Record<string, string>[] = [{}, { "x-http-method-override": "GET" }];
    for (const override of overrides) {
      const refused = await post({ ...CHUNK, "upload-offset": "0", ...override }, randomBytes(KiB));
      expect(refused.status).toBe(405);
      expect(refused.headers.get("allow")).toBe("OPTIONS, HEAD, PATCH, DELETE, POST");
      expect(await readJson(refused)).toEqual({
        message: "POST to an upload needs X-HTTP-Method-Override: PATCH or DELETE.",
      });
    }
    expect((await uploadRow(w, id))?.received).toBe(0);

    // The override's refusals are PATCH's: a wrong offset is a 409 that keeps nothing.
    const wrongOffset = await post(
      { ...CHUNK, "upload-offset": "7", "x-http-method-override": "patch" },
      randomBytes(KiB),
    );
    expect(wrongOffset.status).toBe(409);
    expect(wrongOffset.headers.get("upload-offset")).toBe("0");

    const deleted = await post({ "x-http-method-override": "DELETE" });
    expect(deleted.status).toBe(204);
    expect(deleted.headers.get("tus-resumable")).toBe("1.0.0");
    expect(await uploadRow(w, id)).toBeNull();
  });
});

describe("the protocol's refusals", () => {
  let w: World;
  let customerToken: string;
  let strangerToken: string;
  beforeAll(async () => {
    w = await world();
    customerToken = await tokenFor(w.t.ctx, await createUser(w.t.ctx));
    strangerToken = await tokenFor(w.t.ctx, await createUser(w.t.ctx, { role: "vendor" }));
  });
  afterAll(() => w.t.close());

  test("creation: 201 with a relative Location, the offset, an HTTP-date expiry and the upload as JSON", async () => {
    const before = Date.now();
    const response = await fetch(`${w.base}/api/uploads`, {
      method: "POST",
      headers: {
        ...bearer(w.token),
        ...TUS,
        "upload-length": "10",
        "upload-metadata": `filename ${btoa("notes.txt")},filetype ${btoa("text/plain")},empty`,
      },
    });
    expect(response.status).toBe(201);
    const location = response.headers.get("location") ?? "";
    expect(location).toMatch(/^\/api\/uploads\/[0-9a-f-]{36}$/);
    expect(response.headers.get("upload-offset")).toBe("0");
    const expires = Date.parse(response.headers.get("upload-expires") ?? "");
    expect(expires).toBeGreaterThan(before + 23.9 * 3600_000);
    expect(expires).toBeLessThan(before + 24.1 * 3600_000);
    expect(await readJson(response)).toEqual({
      data: {
        id: location.split("/").at(-1),
        length: 10,
        offset: 0,
        expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      },
    });

    const answer = await head(w, location);
    expect(answer.status).toBe(200);
    expect(Object.fromEntries(answer.headers)).toMatchObject({
      "tus-resumable": "1.0.0",
      "upload-offset": "0",
      "upload-length": "10",
      "cache-control": "no-store",
      "upload-expires": response.headers.get("upload-expires") ?? "",
    });
    // The metadata comes back as sent (tus gives its pairs no order).
    expect(answer.headers.get("upload-metadata")?.split(",").sort()).toEqual([
      "empty",
      `filename ${btoa("notes.txt")}`,
      `filetype ${btoa("text/plain")}`,
    ]);
  });

  test("creation with upload: the first bytes come with the POST", async () => {
    const bytes = randomBytes(1000);
    const response = await fetch(`${w.base}/api/uploads`, {
      method: "POST",
      headers: { ...bearer(w.token), ...CHUNK, "upload-length": "1000" },
      body: bytes.subarray(0, 600),
    });
    expect(response.status).toBe(201);
    expect(response.headers.get("upload-offset")).toBe("600");
    const path = response.headers.get("location") ?? "";
    const rest = await patch(w, path, 600, bytes.subarray(600));
    expect(rest.headers.get("upload-offset")).toBe("1000");
    expect((await uploadRow(w, path.split("/").at(-1) ?? ""))?.sha256).toBe(sha256(bytes));
  });

  test("without Tus-Resumable: 412 naming the version spoken", async () => {
    const response = await fetch(`${w.base}/api/uploads`, {
      method: "POST",
      headers: { ...bearer(w.token), "upload-length": "10" },
    });
    expect(response.status).toBe(412);
    expect(response.headers.get("tus-version")).toBe("1.0.0");
    expect(await readJson(response)).toEqual({
      message: "The Tus-Resumable header is required (tus 1.0.0).",
    });
  });

  test("creation refusals: no length, deferred length, too large, malformed metadata; no row is left", async () => {
    const count = async () => (await w.t.ctx.db.select({ id: uploads.id }).from(uploads)).length;
    const before = await count();
    const post = (headers: Record<string, string>) =>
      fetch(`${w.base}/api/uploads`, { method: "POST", headers: { ...bearer(w.token), ...TUS, ...headers } });
    const cases: [Record<string, string>, number, string][] = [
      [{}, 400, "The upload-length header is required."],
      [{ "upload-length": "-1" }, 400, "The upload-length header must be a non-negative integer."],
      [{ "upload-defer-length": "1" }, 400, "Upload-Length is required: deferring it is not supported."],
      [
        { "upload-length": String(MAX_UPLOAD + 1) },
        413,
        `The file may not be greater than ${MAX_UPLOAD} bytes.`,
      ],
      [
        { "upload-length": "10", "upload-metadata": "filename not base64!" },
        400,
        "Upload-Metadata must be comma-separated, unique `key base64value` pairs.",
      ],
      [
        { "upload-length": "10", "upload-metadata": "filename ***" },
        400,
        "The Upload-Metadata value of filename must be base64.",
      ],
    ];
    for (const [headers, status, message] of cases) {
      const response = await post(headers);
      expect({ headers, status: response.status }).toEqual({ headers, status });
      expect(await readJson(response)).toEqual({ message });
    }
    expect(await count()).toBe(before);
  });

  test("PATCH refusals change nothing: wrong offset 409, past the length 413, wrong type 415, bad checksum header 400", async () => {
    const path = await create(w, 100);
    expect((await patch(w, path, 0, randomBytes(40))).status).toBe(204);

    const conflict = await patch(w, path, 0, randomBytes(10));
    expect(conflict.status).toBe(409);
    expect(conflict.headers.get("upload-offset")).toBe("40");
    expect(await readJson(conflict)).toEqual({
      message: "Upload-Offset does not match the upload's offset, 40.",
    });

    const tooLong = await patch(w, path, 40, randomBytes(61));
    expect(tooLong.status).toBe(413);
    expect(await readJson(tooLong)).toEqual({ message: "The file may not be greater than 60 bytes." });

    const wrongType = await patch(w, path, 40, randomBytes(10), { "content-type": "application/json" });
    expect(wrongType.status).toBe(415);
    expect(await readJson(wrongType)).toEqual({
      message: "Send the upload's bytes as application/offset+octet-stream.",
    });

    const md5 = await patch(w, path, 40, randomBytes(10), { "upload-checksum": "md5 AAAA" });
    expect(md5.status).toBe(400);
    expect(await readJson(md5)).toEqual({ message: "Upload-Checksum must use sha256." });

    expect((await head(w, path)).headers.get("upload-offset")).toBe("40");
  });

  test("who may see an upload: no token 401, no publish right 403, another user's or an unknown one 404", async () => {
    const path = await create(w, 10);
    expect((await fetch(`${w.base}${path}`, { method: "HEAD", headers: TUS })).status).toBe(401);
    expect((await head(w, path, customerToken)).status).toBe(403);
    expect((await head(w, path, strangerToken)).status).toBe(404);
    const strangerPatch = await fetch(`${w.base}${path}`, {
      method: "PATCH",
      headers: { ...bearer(strangerToken), ...CHUNK, "upload-offset": "0" },
      body: "x",
    });
    expect(strangerPatch.status).toBe(404);
    expect(await readJson(strangerPatch)).toEqual({ message: "Upload not found." });
    expect((await head(w, "/api/uploads/00000000-0000-4000-8000-000000000000")).status).toBe(404);
    expect((await head(w, "/api/uploads/not-a-uuid")).status).toBe(404);
    expect((await head(w, path)).headers.get("upload-offset")).toBe("0");
  });

  test("a request wrong twice hears about its headers before its upload: 405, 412 and 415 come before a bad id's 404", async () => {
    const bad = `${w.base}/api/uploads/not-a-uuid`;
    const cases: [string, Record<string, string>, number, string][] = [
      ["HEAD", {}, 412, ""],
      ["DELETE", {}, 412, "The Tus-Resumable header is required (tus 1.0.0)."],
      [
        "PATCH",
        { ...TUS, "upload-offset": "0" },
        415,
        "Send the upload's bytes as application/offset+octet-stream.",
      ],
      ["POST", {}, 405, "POST to an upload needs X-HTTP-Method-Override: PATCH or DELETE."],
      [
        "POST",
        { "x-http-method-override": "PATCH" },
        412,
        "The Tus-Resumable header is required (tus 1.0.0).",
      ],
      [
        "POST",
        { ...TUS, "x-http-method-override": "PATCH", "upload-offset": "0" },
        415,
        "Send the upload's bytes as application/offset+octet-stream.",
      ],
      ["PATCH", { ...CHUNK, "upload-offset": "0" }, 404, "Upload not found."],
      ["DELETE", TUS, 404, "Upload not found."],
    ];
    for (const [method, headers, status, message] of cases) {
      const response = await fetch(bad, { method, headers: { ...bearer(w.token), ...headers } });
      expect({ method, headers, status: response.status }).toEqual({ method, headers, status });
      expect(response.headers.get("tus-resumable")).toBe("1.0.0");
      if (method !== "HEAD") expect(await readJson(response)).toEqual({ message });
    }
    // Without a token, the guard answers first, still in tus's words.
    const anonymous = await fetch(bad, { method: "PATCH", headers: { "upload-offset": "0" } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("tus-resumable")).toBe("1.0.0");
    expect(await readJson(anonymous)).toEqual({ message: "Unauthenticated." });
  });

  test("publishing: unfinished, unknown, not a UUID, another user's, or alongside a file: 422 on upload_id, no version", async () => {
    const unfinished = (await create(w, 100)).split("/").at(-1);
    await patch(w, `/api/uploads/${unfinished}`, 0, randomBytes(30));
    const strangers = await fetch(`${w.base}/api/uploads`, {
      method: "POST",
      headers: { ...bearer(strangerToken), ...CHUNK, "upload-length": "3" },
      body: "abc",
    });
    const strangersId = (strangers.headers.get("location") ?? "").split("/").at(-1);
    const cases: [unknown, Record<string, unknown>, string][] = [
      [unfinished, {}, "The upload is not finished: 30 of 100 bytes have arrived."],
      ["00000000-0000-4000-8000-000000000000", {}, "The selected upload id is invalid."],
      [42, {}, "The upload id must be a UUID."],
      [strangersId, {}, "The selected upload id is invalid."],
      [
        unfinished,
        { file: { filename: "a.txt", content: btoa("abc") } },
        "Send either a file or an upload id, not both.",
      ],
    ];
    for (const [uploadId, fields, message] of cases) {
      const response = await publishFromUpload(w, uploadId, fields);
      expect({ uploadId, status: response.status }).toEqual({ uploadId, status: 422 });
      expect((await readJson(response)).errors).toEqual({ upload_id: [message] });
    }
    // Every field at once: the upload's problem and the body's.
    const both = await publishFromUpload(w, unfinished, { title: "" });
    expect(Object.keys((await readJson(both)).errors).sort()).toEqual(["title", "upload_id"]);
    expect(await w.t.ctx.db.select().from(versions)).toEqual([]);
    expect(existsSync(join(w.t.ctx.config.storageDir, "products"))).toBe(false);
  });

  test("bytes that are gone (a restored backup holds published releases only): PATCH 404, publish 422", async () => {
    const dir = w.t.ctx.config.storageDir;
    const unfinished = await create(w, 100);
    rmSync(join(dir, ".uploads", unfinished.split("/").at(-1) ?? ""));
    const patched = await patch(w, unfinished, 0, randomBytes(10));
    expect(patched.status).toBe(404);
    expect(await readJson(patched)).toEqual({ message: "Upload not found." });

    const finished = await tusUpload(w.base, w.token, randomBytes(100));
    rmSync(join(dir, "uploads", finished.id));
    const published = await publishFromUpload(w, finished.id, { version_name: "8.0.0" });
    expect(published.status).toBe(422);
    expect((await readJson(published)).errors).toEqual({
      upload_id: ["The upload's file is gone; upload it again."],
    });
  });

  test("a refused publish leaves the upload as it was; fixed, it publishes, also as a benefit's version", async () => {
    const bytes = randomBytes(5000);
    const { id } = await tusUpload(w.base, w.token, bytes, { fileName: "plugin.jar" });
    const refused = await publishFromUpload(w, id, { changelog: "" });
    expect(refused.status).toBe(422);
    expect((await uploadRow(w, id))?.consumedAt).toBeNull();
    expect(existsSync(join(w.t.ctx.config.storageDir, "uploads", id))).toBe(true);

    const option = await createOption(w.t.ctx, w.product);
    const benefit = await createBenefit(w.t.ctx, { id: option.id, productId: w.product.id });
    const response = await publishFromUpload(
      w,
      id,
      { version_name: "3.0.0" },
      `/api/products/${w.product.id}/benefits/${benefit.id}/versions`,
    );
    expect(response.status).toBe(201);
    expect((await readJson(response)).data).toMatchObject({
      purchase_benefit_id: benefit.id,
      file_name: "plugin.jar",
      sha256: sha256(bytes),
    });
  });

  test("expiry: 410 once expired; the sweep removes unfinished and unpublished uploads with their files, and a published one's row only", async () => {
    const unfinished = await create(w, 100);
    await patch(w, unfinished, 0, randomBytes(10));
    const unpublished = await tusUpload(w.base, w.token, randomBytes(100));
    const published = await tusUpload(w.base, w.token, randomBytes(100));
    const response = await publishFromUpload(w, published.id, { version_name: "9.0.0" });
    const version = (await readJson(response)).data;

    const past = new Date(Date.now() - 1000);
    await w.t.ctx.db.update(uploads).set({ expiresAt: past });
    const expired = await head(w, unfinished);
    expect(expired.status).toBe(410);
    const patched = await patch(w, unfinished, 10, randomBytes(10));
    expect(patched.status).toBe(410);
    expect(await readJson(patched)).toEqual({ message: "The upload has expired." });

    expect(await sweepExpiredUploads(w.t.ctx)).toBeGreaterThanOrEqual(3);
    expect(await w.t.ctx.db.select().from(uploads)).toEqual([]);
    expect((await head(w, unfinished)).status).toBe(404);
    const dir = w.t.ctx.config.storageDir;
    expect(existsSync(join(dir, ".uploads", unfinished.split("/").at(-1) ?? ""))).toBe(false);
    expect(existsSync(join(dir, "uploads", unpublished.id))).toBe(false);
    // The published file is the version's: it stays, and downloads.
    const download = await fetch(version.download_url.replace("http://depot.test", w.base), {
      headers: bearer(w.token),
    });
    expect(download.status).toBe(200);
    expect((await download.arrayBuffer()).byteLength).toBe(100);
  });
});

describe("limits per user: MAX_OPEN_UPLOADS and MAX_OPEN_UPLOAD_BYTES", () => {
  const MAX_OPEN = 3;
  let w: World;
  beforeAll(async () => {
    w = await world({ MAX_OPEN_UPLOADS: String(MAX_OPEN), MAX_OPEN_UPLOAD_BYTES: String(MAX_UPLOAD) });
  });
  afterAll(() => w.t.close());

  /** Another vendor with a token, and how many uploads that vendor has. */
  async function vendor() {
    const user = await createUser(w.t.ctx, { role: "vendor" });
    const token = await tokenFor(w.t.ctx, user);
    const rows = async () =>
      (await w.t.ctx.db.select({ id: uploads.id }).from(uploads).where(eq(uploads.userId, user.id))).length;
    return { token, rows };
  }

  const post = (token: string, length: number) =>
    fetch(`${w.base}/api/uploads`, {
      method: "POST",
      headers: { ...bearer(token), ...TUS, "upload-length": String(length) },
    });

  const tooMany = {
    message: `You already have ${MAX_OPEN} open uploads; one user may have at most ${MAX_OPEN}. Publish or delete one (or let it expire) first.`,
  };

  async function expectRefused(response: Response, status: number, body: unknown) {
    expect(response.status).toBe(status);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(response.headers.get("tus-resumable")).toBe("1.0.0");
    expect(response.headers.get("location")).toBeNull();
    expect(await readJson(response)).toEqual(body);
  }

  test("past MAX_OPEN_UPLOADS a 429 that creates nothing; publishing, deleting or expiring one makes room", async () => {
    const count = async () =>
      (await w.t.ctx.db.select({ id: uploads.id }).from(uploads).where(isNull(uploads.consumedAt))).length;
    const finished = await tusUpload(w.base, w.token, randomBytes(100));
    const waiting = await create(w, 10);
    const doomed = await create(w, 10);
    const before = await count();
    await expectRefused(await post(w.token, 10), 429, tooMany);
    expect(await count()).toBe(before);

    // Another vendor's uploads are theirs to count.
    const other = await vendor();
    expect((await post(other.token, 10)).status).toBe(201);

    // Published: its file is the version's now, the upload no longer open.
    expect((await publishFromUpload(w, finished.id, { version_name: "5.0.0" })).status).toBe(201);
    const fourth = await create(w, 10);
    await expectRefused(await post(w.token, 10), 429, tooMany);

    const deleted = await fetch(`${w.base}${doomed}`, {
      method: "DELETE",
      headers: { ...bearer(w.token), ...TUS },
    });
    expect(deleted.status).toBe(204);
    await create(w, 10);
    await expectRefused(await post(w.token, 10), 429, tooMany);

    // Expired (answering 410 until the sweep takes it): no longer open either.
    await w.t.ctx.db
      .update(uploads)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(uploads.id, waiting.split("/").at(-1) ?? ""));
    await create(w, 10);
    await expectRefused(await post(w.token, 10), 429, tooMany);
    expect((await head(w, fourth)).status).toBe(200);
  });

  test("past MAX_OPEN_UPLOAD_BYTES declared together, a 413 that creates nothing", async () => {
    const { token, rows } = await vendor();
    expect((await post(token, 10 * MiB)).status).toBe(201);
    await expectRefused(await post(token, 7 * MiB), 413, {
      message: `Your open uploads would declare ${17 * MiB} bytes, more than the ${MAX_UPLOAD} one user may have open. Publish or delete one (or let it expire) first.`,
    });
    expect(await rows()).toBe(1);
    expect((await post(token, 6 * MiB)).status).toBe(201);
    expect(await rows()).toBe(2);
  });

  test("creations at once are counted one after the other: only one takes the last place", async () => {
    const { token, rows } = await vendor();
    for (let i = 1; i < MAX_OPEN; i++) expect((await post(token, 10)).status).toBe(201);
    const statuses = (await Promise.all(Array.from({ length: 8 }, () => post(token, 10)))).map(
      (r) => r.status,
    );
    expect(statuses.sort()).toEqual([201, 429, 429, 429, 429, 429, 429, 429]);
    expect(await rows()).toBe(MAX_OPEN);

    // The same for the bytes: of eight uploads of 10 MiB, one fits under 16 MiB.
    const bytes = await vendor();
    const sized = (await Promise.all(Array.from({ length: 8 }, () => post(bytes.token, 10 * MiB)))).map(
      (r) => r.status,
    );
    expect(sized.sort()).toEqual([201, 413, 413, 413, 413, 413, 413, 413]);
    expect(await bytes.rows()).toBe(1);
  });
});
