import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { eq } from "drizzle-orm";
import { versions } from "../src/db/schema/index.ts";
import { MAX_RANGES } from "../src/http/byte-ranges.ts";
import { bearer, readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { type BytePart, parseByteranges } from "./helpers/byteranges.ts";
import { randomBytes, sha256 } from "./helpers/bytes.ts";
import { createProduct, createUser, tokenFor } from "./helpers/factories.ts";
import { publishedVersion } from "./helpers/publish.ts";
import { startS3, type TestS3 } from "./helpers/s3.ts";

/**
 * Several byte ranges in one request (`Range: bytes=a-b, c-d, …`), as electron-updater's differential
 * download sends them, through a listening server from local disk and from a bucket (s3rver): a 206
 * `multipart/byteranges` whose parts are parsed off the wire and compared byte for byte with the
 * file; coalescing of overlapping or unsorted ranges; 416 for malformed or too many ranges; If-Range,
 * 304 and HEAD; and, with STORAGE_DOWNLOADS=redirect, several ranges streamed by depot rather than
 * sent to a bucket that would answer them with the whole file.
 */

setDefaultTimeout(30_000);

const KiB = 1024;
const MiB = 1024 * KiB;
/** Large enough that ranges far apart are read as separate spans (SPAN_GAP is 128 KiB). */
const SIZE = 3 * MiB + 517;
const bytes = randomBytes(SIZE);
const TYPE = "application/octet-stream";

let s3: TestS3;
const apps: TestApp[] = [];
afterAll(async () => {
  for (const app of apps) await app.close();
  await s3?.close();
});

interface Store {
  name: string;
  env: () => Record<string, string>;
}
const stores: Store[] = [
  { name: "local disk", env: () => ({}) },
  { name: "object storage (s3rver)", env: () => s3.env("ranges") },
];

beforeAll(async () => {
  s3 = await startS3();
});

/** A server on `env` with one version holding `bytes`; returns a fetch of its download URL. */
async function serve(env: Record<string, string>) {
  const app = await startTestApp({ jobs: "send", env });
  apps.push(app);
  const base = app.listen();
  const vendor = await createUser(app.ctx, { role: "vendor" });
  const token = await tokenFor(app.ctx, vendor);
  const product = await createProduct(app.ctx, vendor);
  const version = await publishedVersion(base, token, product.id, {
    name: "1.0.0",
    bytes,
    fileName: "app.bin",
  });
  const url = version.download_url.replace("http://depot.test", base);
  return {
    app,
    versionId: version.id as number,
    get: (headers: Record<string, string> = {}, init: RequestInit = {}) =>
      fetch(url, { ...init, headers: { ...bearer(token), ...headers } }),
  };
}

const rangeHeader = (ranges: Array<[number, number]>) =>
  `bytes=${ranges.map(([a, b]) => `${a}-${b}`).join(", ")}`;

/** The parts of a 206 multipart answer, checked against `expected` ranges of `bytes`, in order. */
async function expectParts(response: Response, expected: Array<[number, number]>): Promise<BytePart[]> {
  expect(response.status).toBe(206);
  const body = new Uint8Array(await response.arrayBuffer());
  const parts = parseByteranges(response.headers.get("content-type"), body);
  expect(parts.map((part) => part.headers)).toEqual(
    expected.map(([start, end]) => ({
      "content-type": TYPE,
      "content-range": `bytes ${start}-${end}/${SIZE}`,
    })),
  );
  parts.forEach((part, i) => {
    const [start, end] = expected[i] as [number, number];
    // Compared as buffers: one differing byte fails with its offset, not a million-line diff.
    expect({ part: i, equal: Buffer.compare(part.bytes, bytes.subarray(start, end + 1)) }).toEqual({
      part: i,
      equal: 0,
    });
  });
  return parts;
}

async function expect416(response: Response, message: string) {
  expect(response.status).toBe(416);
  expect(response.headers.get("content-type")).toBe("application/json;charset=utf-8");
  expect(response.headers.get("content-range")).toBe(`bytes */${SIZE}`);
  expect(response.headers.get("content-disposition")).toBeNull();
  expect(await readJson(response)).toEqual({ message });
}

for (const store of stores) {
  describe(`several ranges from ${store.name}`, () => {
    let server: Awaited<ReturnType<typeof serve>>;
    beforeAll(async () => {
      server = await serve(store.env());
    });

    test("206 multipart/byteranges: each part's Content-Type, Content-Range and bytes, in the order asked", async () => {
      const ranges: Array<[number, number]> = [
        [0, 9],
        [100, 199],
        [2 * MiB, 2 * MiB + 4],
        [SIZE - 7, SIZE - 1],
      ];
      const response = await server.get({ range: rangeHeader(ranges) });
      const headers = Object.fromEntries(response.headers);
      expect(headers["content-type"]).toMatch(/^multipart\/byteranges; boundary=depot-[0-9a-f]{32}$/);
      expect(headers["content-range"]).toBeUndefined();
      expect(headers).toMatchObject({
        etag: `"${sha256(bytes)}"`,
        "accept-ranges": "bytes",
        "content-disposition": 'attachment; filename="app.bin"',
        "cache-control": "private, no-cache",
      });
      await expectParts(response, ranges);
    });

    test("suffix and open-ended ranges, with optional spaces and empty list elements", async () => {
      await expectParts(await server.get({ range: "bytes=0-0 ,\t,3145700-" }), [
        [0, 0],
        [3145700, SIZE - 1],
      ]);
      // Unsorted (the suffix asked first): sorted, as RFC 9110 §14.6 allows.
      await expectParts(await server.get({ range: "bytes=-5, 10-19," }), [
        [10, 19],
        [SIZE - 5, SIZE - 1],
      ]);
    });

    test(`${MAX_RANGES} small scattered ranges: every part exact, in order`, async () => {
      // Kept within the first 100 KB so the header fits Bun's default 16 KiB limit of the server this
      // test runs in (see the README on long Range headers).
      const ranges: Array<[number, number]> = [];
      let at = 0;
      for (let i = 0; i < MAX_RANGES; i++) {
        at += 1 + ((i * 7919) % 40);
        const end = at + ((i * 104729) % 40);
        ranges.push([at, end]);
        at = end + 1;
      }
      const parts = await expectParts(await server.get({ range: rangeHeader(ranges) }), ranges);
      expect(parts).toHaveLength(MAX_RANGES);
    });

    test("ranges far apart, each read from the store on its own (gaps over 128 KiB)", async () => {
      const ranges: Array<[number, number]> = Array.from({ length: 20 }, (_, i) => [
        i * 150 * KiB + i,
        i * 150 * KiB + i + 999,
      ]);
      await expectParts(await server.get({ range: rangeHeader(ranges) }), ranges);
    });

    test("large parts: a megabyte each, across the whole file", async () => {
      const ranges: Array<[number, number]> = [
        [1, MiB],
        [MiB + 200 * KiB, 2 * MiB + 300 * KiB],
        [3 * MiB, SIZE - 1],
      ];
      await expectParts(await server.get({ range: rangeHeader(ranges) }), ranges);
    });

    test("overlapping or unsorted ranges are sorted and merged, so no byte is sent twice", async () => {
      const response = await server.get({ range: "bytes=500-599, 0-99, 50-149, 550-650, 150-160" });
      await expectParts(response, [
        [0, 160],
        [500, 650],
      ]);
      // Merged into one, the answer is a plain 206: bytes=0-,0-,… costs one copy of the file.
      const repeated = await server.get({ range: `bytes=${Array(MAX_RANGES).fill("0-").join(",")}` });
      expect(repeated.status).toBe(206);
      expect(repeated.headers.get("content-type")).toBe(TYPE);
      expect(repeated.headers.get("content-range")).toBe(`bytes 0-${SIZE - 1}/${SIZE}`);
      expect(sha256(await repeated.arrayBuffer())).toBe(sha256(bytes));
    });

    test("only one satisfiable range among several: a plain 206 with its Content-Range", async () => {
      const response = await server.get({ range: `bytes=${SIZE}-, 10-14, ${SIZE + 5}-${SIZE + 9}` });
      expect(response.status).toBe(206);
      expect(response.headers.get("content-type")).toBe(TYPE);
      expect(response.headers.get("content-range")).toBe(`bytes 10-14/${SIZE}`);
      expect(new Uint8Array(await response.arrayBuffer())).toEqual(bytes.subarray(10, 15));
    });

    test("416 JSON with bytes */size: malformed, reversed, empty, none satisfiable, or too many ranges", async () => {
      const malformed = "The Range header is not a valid list of byte ranges.";
      for (const range of [
        "bytes=abc",
        "bytes=5-2",
        "bytes=0-4, 9-3",
        "bytes=",
        "bytes= , ",
        "bytes=0-1;2-3",
        "bytes=1-2, x",
        "0-4",
      ]) {
        await expect416(await server.get({ range }), malformed);
      }
      await expect416(
        await server.get({ range: `bytes=${SIZE}-, ${SIZE + 10}-${SIZE + 20}, -0` }),
        "The requested range is not satisfiable.",
      );
      const tooMany = rangeHeader(
        Array.from({ length: MAX_RANGES + 1 }, (_, i) => [i * 2, i * 2] as [number, number]),
      );
      await expect416(
        await server.get({ range: tooMany }),
        `At most ${MAX_RANGES} ranges may be requested at once.`,
      );
      // Another range unit is ignored, as RFC 9110 requires: the whole file.
      const other = await server.get({ range: "items=0-4, 6-9" });
      expect(other.status).toBe(200);
      expect(sha256(await other.arrayBuffer())).toBe(sha256(bytes));
    });

    test("If-Range: the ETag → multipart; another ETag → 200 whole; If-None-Match → 304", async () => {
      const range = "bytes=0-3, 10-13";
      const etag = `"${sha256(bytes)}"`;
      await expectParts(await server.get({ range, "if-range": etag }), [
        [0, 3],
        [10, 13],
      ]);
      const stale = await server.get({ range, "if-range": `"${"0".repeat(64)}"` });
      expect(stale.status).toBe(200);
      expect(stale.headers.get("content-type")).toBe(TYPE);
      expect(sha256(await stale.arrayBuffer())).toBe(sha256(bytes));
      const held = await server.get({ range, "if-none-match": etag });
      expect(held.status).toBe(304);
      expect(await held.text()).toBe("");
    });

    test("HEAD: the multipart headers with the exact length of the body a GET sends, and no body", async () => {
      const range = "bytes=0-99, 1000-1999, -10";
      const head = await server.get({ range }, { method: "HEAD" });
      expect(head.status).toBe(206);
      expect(head.headers.get("content-type")).toMatch(
        /^multipart\/byteranges; boundary=depot-[0-9a-f]{32}$/,
      );
      expect(head.headers.get("content-range")).toBeNull();
      expect((await head.arrayBuffer()).byteLength).toBe(0);
      const get = await server.get({ range });
      const body = await get.arrayBuffer();
      expect(head.headers.get("content-length")).toBe(String(body.byteLength));
    });

    test("a client that goes away mid-body: the next request is served in full", async () => {
      const controller = new AbortController();
      const ranges: Array<[number, number]> = [
        [0, MiB],
        [2 * MiB, SIZE - 1],
      ];
      const response = await server.get({ range: rangeHeader(ranges) }, { signal: controller.signal });
      expect(response.status).toBe(206);
      const reader = response.body?.getReader();
      const first = await reader?.read();
      expect(first?.value?.byteLength).toBeGreaterThan(0);
      controller.abort();
      await reader?.cancel().catch(() => {});
      await expectParts(await server.get({ range: rangeHeader(ranges) }), ranges);
    });

    test("a multi-range request starting at byte 0 counts as a download; one further in does not", async () => {
      const before = await downloadsOf(server);
      await (await server.get({ range: "bytes=0-9, 20-29" })).arrayBuffer();
      await (await server.get({ range: "bytes=5-9, 20-29" })).arrayBuffer();
      expect(await downloadsOf(server)).toBe(before + 1);
    });
  });
}

async function downloadsOf(server: Awaited<ReturnType<typeof serve>>): Promise<number> {
  await server.app.ctx.downloads.flush();
  const [row] = await server.app.ctx.db.select().from(versions).where(eq(versions.id, server.versionId));
  return row?.downloads ?? -1;
}

describe("STORAGE_DOWNLOADS=redirect", () => {
  test("several ranges are streamed by depot (a bucket answers them with the whole file); one range is redirected", async () => {
    const server = await serve({ ...s3.env("redirect"), STORAGE_DOWNLOADS: "redirect" });
    const several = await server.get({ range: "bytes=0-9, 1000-1009" }, { redirect: "manual" });
    expect(several.headers.get("location")).toBeNull();
    await expectParts(several, [
      [0, 9],
      [1000, 1009],
    ]);
    const malformed = await server.get({ range: "bytes=9-0" }, { redirect: "manual" });
    await expect416(malformed, "The Range header is not a valid list of byte ranges.");
    const one = await server.get({ range: "bytes=0-9" }, { redirect: "manual" });
    expect(one.status).toBe(302);
    const direct = await fetch(one.headers.get("location") ?? "", { headers: { range: "bytes=0-9" } });
    expect(direct.status).toBe(206);
    expect(new Uint8Array(await direct.arrayBuffer())).toEqual(bytes.subarray(0, 10));
  });
});
