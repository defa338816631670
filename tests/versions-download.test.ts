import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { eq } from "drizzle-orm";
import { artifacts, products } from "../src/db/schema/index.ts";
import { createLicense, revokeLicense } from "../src/features/licenses/service.ts";
import { signUrl } from "../src/signed-url.ts";
import { bearer, readJson, recordingLogger, startTestApp, type TestApp } from "./helpers/app.ts";
import {
  createBenefit,
  createOption,
  createProduct,
  createPurchase,
  createRole,
  createUser,
  tokenFor,
} from "./helpers/factories.ts";
import { signIn, userWithPassword } from "./helpers/sessions.ts";

/**
 * Downloading a version's file (README, Releases) through a listening server: who may download (bearer
 * token, `X-License-Key`, signed URL), and the HTTP of a file — 200, 206, 416, 304, HEAD — with the exact
 * headers Bun.serve sends, since Range handling lives there and not in `app.handle`.
 */

const MiB = 1024 * 1024;
/** Acts for every creator, as the license factory needs. */
const ANY_KEY = { id: 0, creatorId: null };

let t: TestApp;
let base: string;
const recorder = recordingLogger("info");
let owner: { id: number };
let ownerToken: string;
let admin: { id: number };
let adminToken: string;
/** A live license for the product, no benefit. */
let holder: { id: number };
let holderToken: string;
let holderKey: string;
/** A live license and a purchase of the benefit's option. */
let benefitHolder: { id: number };
let benefitHolderToken: string;
let benefitHolderKey: string;
let stranger: { id: number };
let strangerToken: string;
let expired: { id: number };
let expiredToken: string;
let expiredKey: string;
let revokedToken: string;
let revokedKey: string;
/** A live license of the holder's, for another product. */
let otherProductKey: string;
let product: { id: number };

interface Published {
  id: number;
  download_url: string;
  file_name: string;
  file_size: number;
  sha256: string;
  downloads: string;
}
/** Whole-product version: 20 bytes of "0123456789ABCDEFGHIJ". */
let whole: Published;
/** Another whole-product version, for a tampered path. */
let second: Published;
let benefitVersion: Published;

const CONTENT = new TextEncoder().encode("0123456789ABCDEFGHIJ");
const sha256 = (bytes: Uint8Array) => new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
const base64Digest = (bytes: Uint8Array) =>
  Buffer.from(new Bun.CryptoHasher("sha256").update(bytes).digest()).toString("base64");

/** Publishes through the API as the owner (multipart). */
async function publish(
  path: string,
  file: { bytes: Uint8Array; name: string; type?: string },
): Promise<Published> {
  const body = new FormData();
  body.append("version_name", `1.${crypto.randomUUID()}`);
  body.append("title", "Release");
  body.append("changelog", "Notes.");
  body.append("file", new File([file.bytes], file.name, { type: file.type ?? "application/java-archive" }));
  const response = await fetch(`${base}${path}`, { method: "POST", headers: bearer(ownerToken), body });
  expect(response.status).toBe(201);
  return (await readJson(response)).data;
}

async function liveLicense(
  ownerId: number,
  productId: number,
  fields: { expires?: string } = {},
): Promise<{ id: string; key: string }> {
  return createLicense(t.ctx, ANY_KEY, {
    ownerId: String(ownerId),
    creatorId: String(owner.id),
    productId: String(productId),
    ...fields,
  });
}

beforeAll(async () => {
  t = await startTestApp({ jobs: "send", log: recorder.log });
  base = t.listen();
  owner = await createUser(t.ctx, { role: "vendor" });
  ownerToken = await tokenFor(t.ctx, owner);
  admin = await createUser(t.ctx, { role: "admin" });
  adminToken = await tokenFor(t.ctx, admin);
  product = await createProduct(t.ctx, owner);
  const option = await createOption(t.ctx, product);
  const benefit = await createBenefit(t.ctx, { id: option.id, productId: product.id });
  const otherProduct = await createProduct(t.ctx, owner);

  holder = await createUser(t.ctx);
  holderToken = await tokenFor(t.ctx, holder);
  holderKey = (await liveLicense(holder.id, product.id)).key;
  otherProductKey = (await liveLicense(holder.id, otherProduct.id)).key;

  benefitHolder = await createUser(t.ctx);
  benefitHolderToken = await tokenFor(t.ctx, benefitHolder);
  benefitHolderKey = (await liveLicense(benefitHolder.id, product.id)).key;
  await createPurchase(t.ctx, benefitHolder, product, { option_id: option.id });

  stranger = await createUser(t.ctx);
  strangerToken = await tokenFor(t.ctx, stranger);

  expired = await createUser(t.ctx);
  expiredToken = await tokenFor(t.ctx, expired);
  expiredKey = (await liveLicense(expired.id, product.id, { expires: "2020-01-01T00:00:00Z" })).key;
  // An expired license with the benefit too: expiry must win.
  await createPurchase(t.ctx, expired, product, { option_id: option.id });

  const revoked = await createUser(t.ctx);
  revokedToken = await tokenFor(t.ctx, revoked);
  const revokedLicense = await liveLicense(revoked.id, product.id);
  await revokeLicense(t.ctx, ANY_KEY, revokedLicense.id);
  revokedKey = revokedLicense.key;

  whole = await publish(`/api/products/${product.id}/versions`, { bytes: CONTENT, name: "plugin-1.0.jar" });
  second = await publish(`/api/products/${product.id}/versions`, { bytes: CONTENT, name: "plugin-1.1.jar" });
  benefitVersion = await publish(`/api/products/${product.id}/benefits/${benefit.id}/versions`, {
    bytes: new TextEncoder().encode("premium bytes"),
    name: "premium.jar",
  });
}, 30_000);
afterAll(() => t.close());

/** The path and query of an absolute URL built on APP_URL (http://depot.test), sent to the real server. */
const onServer = (url: string) => {
  const parsed = new URL(url);
  return `${base}${parsed.pathname}${parsed.search}`;
};

interface DownloadOptions {
  token?: string;
  key?: string;
  method?: string;
  headers?: Record<string, string>;
}
const download = (version: Published, { token, key, method = "GET", headers = {} }: DownloadOptions = {}) =>
  fetch(onServer(version.download_url), {
    method,
    headers: {
      ...(token ? bearer(token) : {}),
      ...(key ? { "x-license-key": key } : {}),
      ...headers,
    },
  });

/** Every header except the ones that change per request. */
function headersOf(response: Response): Record<string, string> {
  const all = Object.fromEntries(response.headers);
  const { date: _date, "x-request-id": requestId, ...rest } = all;
  expect(requestId).toBeString();
  return rest;
}

/** The headers of the whole file `whole` (CONTENT), as 200 and HEAD send them. */
const wholeHeaders = () => ({
  "content-type": "application/java-archive",
  "content-length": "20",
  "content-disposition": 'attachment; filename="plugin-1.0.jar"',
  etag: `"${sha256(CONTENT)}"`,
  "accept-ranges": "bytes",
  "repr-digest": `sha-256=:${base64Digest(CONTENT)}:`,
  "cache-control": "private, no-cache",
  "x-content-type-options": "nosniff",
});

async function expectWhole(response: Response, bytes: Uint8Array = CONTENT) {
  expect(response.status).toBe(200);
  const body = new Uint8Array(await response.arrayBuffer());
  expect(Buffer.compare(Buffer.from(body), Buffer.from(bytes))).toBe(0);
}

async function expectRefused(response: Response, status: number, message: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toContain("application/json");
  expect(await readJson(response)).toEqual({ message });
}

// --- who may download -------------------------------------------------------------------------------

describe("download: bearer tokens", () => {
  test("the owner, an admin and a holder (live license) may download", async () => {
    for (const token of [ownerToken, adminToken, holderToken, benefitHolderToken]) {
      await expectWhole(await download(whole, { token }));
    }
  });

  test("a non-holder, an expired license's owner and a revoked license's owner → 403", async () => {
    for (const token of [strangerToken, expiredToken, revokedToken]) {
      await expectRefused(await download(whole, { token }), 403, "This action is unauthorized.");
    }
  });

  test("no credentials → 401; a bad token → 401", async () => {
    const none = await download(whole);
    expect(none.headers.get("www-authenticate")).toBe("Bearer");
    await expectRefused(none, 401, "Unauthenticated.");
    for (const token of ["garbled", "999999|aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"]) {
      await expectRefused(await download(whole, { token }), 401, "Unauthenticated.");
    }
  });

  test("a token in ?access_token= is not a credential: 401, with or without a non-Bearer header", async () => {
    const url = `${onServer(whole.download_url)}?access_token=${encodeURIComponent(ownerToken)}`;
    const headerSets: Record<string, string>[] = [{}, { authorization: "Basic dXNlcjpwYXNz" }];
    for (const headers of headerSets) {
      await expectRefused(await fetch(url, { headers }), 401, "Unauthenticated.");
    }
  });

  test("a benefit version: a holder without the benefit → 403; with it (a purchase of its option) → 200", async () => {
    await expectRefused(
      await download(benefitVersion, { token: holderToken }),
      403,
      "This action is unauthorized.",
    );
    await expectRefused(
      await download(benefitVersion, { token: expiredToken }),
      403,
      "This action is unauthorized.",
    );
    await expectWhole(
      await download(benefitVersion, { token: benefitHolderToken }),
      new TextEncoder().encode("premium bytes"),
    );
    await expectWhole(
      await download(benefitVersion, { token: ownerToken }),
      new TextEncoder().encode("premium bytes"),
    );
    await expectWhole(
      await download(benefitVersion, { token: adminToken }),
      new TextEncoder().encode("premium bytes"),
    );
  });

  test("unknown version or product → 404", async () => {
    for (const [path, message] of [
      [`/api/products/${product.id}/versions/999999/download`, "Version not found."],
      [`/api/products/999999/versions/${whole.id}/download`, "Product not found."],
      [`/api/products/${product.id}/versions/abc/download`, "Version not found."],
    ] as const) {
      await expectRefused(await fetch(`${base}${path}`, { headers: bearer(ownerToken) }), 404, message);
    }
  });
});

describe("download: X-License-Key", () => {
  test("a live license for the product may download", async () => {
    await expectWhole(await download(whole, { key: holderKey }));
    // Keys are accepted as users type them: lower case works too.
    await expectWhole(await download(whole, { key: holderKey.toLowerCase() }));
  });

  test("an expired, a revoked, an unknown key, or a key for another product → 403", async () => {
    for (const key of [expiredKey, revokedKey, otherProductKey, "AAAAA-BBBBB-CCCCC-DDDDD-EEEEE"]) {
      await expectRefused(await download(whole, { key }), 403, "This license may not download this version.");
    }
  });

  test("a benefit version needs the benefit", async () => {
    await expectRefused(
      await download(benefitVersion, { key: holderKey }),
      403,
      "This license may not download this version.",
    );
    await expectWhole(
      await download(benefitVersion, { key: benefitHolderKey }),
      new TextEncoder().encode("premium bytes"),
    );
  });
});

describe("download: signed URLs", () => {
  const inAnHour = () => new Date(Date.now() + 3600_000);
  const linkFor = (version: Published, user: { id: number }, expiresAt = inAnHour()) =>
    signUrl(version.download_url, t.ctx.appKey, { userId: user.id, expiresAt });
  const get = (url: string) => fetch(onServer(url));

  test("a signed URL needs no other credentials, for a whole-product or a benefit version", async () => {
    const signed = linkFor(whole, holder);
    expect(signed).toStartWith(`${whole.download_url}?user=${holder.id}&expires=`);
    expect(new URL(signed).searchParams.get("signature")).toMatch(/^[0-9a-f]{64}$/);
    const response = await get(signed);
    expect(headersOf(response)).toEqual(wholeHeaders());
    await expectWhole(response);
    await expectWhole(
      await get(linkFor(benefitVersion, benefitHolder)),
      new TextEncoder().encode("premium bytes"),
    );
  });

  test("a link acts as its user, as they are now: owner, admin and holders download, anyone else → 403", async () => {
    for (const user of [owner, admin, holder]) await expectWhole(await get(linkFor(whole, user)));
    const refused = "The user this link was issued to may no longer download this version.";
    for (const user of [stranger, expired])
      await expectRefused(await get(linkFor(whole, user)), 403, refused);
    // A holder without the benefit may not use a link to the benefit's version either.
    await expectRefused(await get(linkFor(benefitVersion, holder)), 403, refused);
  });

  test("a link signed before links named their user → 403 saying why, even for a live holder", async () => {
    // Signed as depot did before: the same HMAC over the URL with only `expires` in its query.
    const unnamed = new URL(whole.download_url);
    unnamed.searchParams.set("expires", String(Math.floor(inAnHour().getTime() / 1000)));
    unnamed.searchParams.set(
      "signature",
      createHmac("sha256", t.ctx.appKey).update(unnamed.toString()).digest("hex"),
    );
    await expectRefused(
      await get(unnamed.toString()),
      403,
      "This download link is from before links named their user; open the notification again for a new one.",
    );
  });

  test("an expired signature → 403 Invalid signature.", async () => {
    const past = linkFor(whole, holder, new Date(Date.now() - 1000));
    await expectRefused(await get(past), 403, "Invalid signature.");
  });

  test("a tampered signature, path, expiry or user → 403", async () => {
    const signed = new URL(linkFor(whole, holder));
    const signature = signed.searchParams.get("signature") ?? "";

    const badSignature = new URL(signed);
    badSignature.searchParams.set(
      "signature",
      `${signature.slice(0, -1)}${signature.endsWith("0") ? "1" : "0"}`,
    );
    const otherPath = new URL(signed.toString().replace(`/versions/${whole.id}/`, `/versions/${second.id}/`));
    const laterExpiry = new URL(signed);
    laterExpiry.searchParams.set("expires", String(Number(signed.searchParams.get("expires")) + 3600));
    const withoutExpiry = new URL(signed);
    withoutExpiry.searchParams.delete("expires");
    // The owner may download, but this link was not issued to them.
    const otherUser = new URL(signed);
    otherUser.searchParams.set("user", String(owner.id));
    const withoutUser = new URL(signed);
    withoutUser.searchParams.delete("user");
    const otherKey = signUrl(whole.download_url, "not the app key", {
      userId: holder.id,
      expiresAt: inAnHour(),
    });
    const emptySignature = new URL(signed);
    emptySignature.searchParams.set("signature", "");

    for (const url of [
      badSignature,
      otherPath,
      laterExpiry,
      withoutExpiry,
      otherUser,
      withoutUser,
      new URL(otherKey),
      emptySignature,
    ]) {
      await expectRefused(await get(url.toString()), 403, "Invalid signature.");
    }
    // A bad signature is refused even when the caller also shows a good token.
    await expectRefused(
      await fetch(onServer(badSignature.toString()), { headers: bearer(ownerToken) }),
      403,
      "Invalid signature.",
    );
  });
});

// --- the HTTP of a file ---------------------------------------------------------------------------------

describe("download: 200, 206, 416, 304, HEAD with exact headers", () => {
  const withRange = (range: string, extra: Record<string, string> = {}) =>
    download(whole, { token: ownerToken, headers: { range, ...extra } });

  test("200: the whole file with its headers", async () => {
    const response = await download(whole, { token: ownerToken });
    expect(headersOf(response)).toEqual(wholeHeaders());
    await expectWhole(response);
  });

  test("HEAD: the same headers, no body", async () => {
    const response = await download(whole, { token: ownerToken, method: "HEAD" });
    expect(response.status).toBe(200);
    expect(headersOf(response)).toEqual(wholeHeaders());
    expect((await response.arrayBuffer()).byteLength).toBe(0);
  });

  test("HEAD with a Range: the 206 headers with the range's length, no body", async () => {
    const response = await download(whole, {
      token: ownerToken,
      method: "HEAD",
      headers: { range: "bytes=0-4" },
    });
    expect(response.status).toBe(206);
    expect(headersOf(response)).toEqual({
      ...wholeHeaders(),
      "content-length": "5",
      "content-range": "bytes 0-4/20",
    });
    expect((await response.arrayBuffer()).byteLength).toBe(0);
  });

  test("206: a closed range, an open-ended range, a suffix range, a range past the end", async () => {
    const cases = [
      ["bytes=0-4", "01234", "bytes 0-4/20"],
      ["bytes=5-", "56789ABCDEFGHIJ", "bytes 5-19/20"],
      ["bytes=-3", "HIJ", "bytes 17-19/20"],
      ["bytes=15-100", "FGHIJ", "bytes 15-19/20"],
      ["bytes=-50", "0123456789ABCDEFGHIJ", "bytes 0-19/20"],
      ["bytes=7-7", "7", "bytes 7-7/20"],
    ] as const;
    for (const [range, body, contentRange] of cases) {
      const response = await withRange(range);
      expect({ range, status: response.status }).toEqual({ range, status: 206 });
      expect(headersOf(response)).toEqual({
        ...wholeHeaders(),
        "content-length": String(body.length),
        "content-range": contentRange,
      });
      expect(await response.text()).toBe(body);
    }
  });

  test("416: a range wholly past the end, or an empty suffix, with bytes */20", async () => {
    for (const range of ["bytes=20-", "bytes=100-200", "bytes=-0"]) {
      const response = await withRange(range);
      expect({ range, status: response.status }).toEqual({ range, status: 416 });
      const { "content-disposition": _, ...rest } = wholeHeaders();
      const message = JSON.stringify({ message: "The requested range is not satisfiable." });
      expect(headersOf(response)).toEqual({
        ...rest,
        "content-type": "application/json;charset=utf-8",
        "content-length": String(message.length),
        "content-range": "bytes */20",
      });
      expect(await readJson(response)).toEqual({ message: "The requested range is not satisfiable." });
    }
  });

  test("another range unit → 200 with the whole file; a malformed or reversed byte range → 416", async () => {
    const other = await withRange("items=0-4");
    expect(other.status).toBe(200);
    expect(headersOf(other)).toEqual(wholeHeaders());
    expect(await other.text()).toBe("0123456789ABCDEFGHIJ");
    for (const range of ["bytes=5-2", "bytes=abc", "bytes=0-1, x"]) {
      const response = await withRange(range);
      expect({ range, status: response.status }).toEqual({ range, status: 416 });
      expect(response.headers.get("content-range")).toBe("bytes */20");
      expect(await readJson(response)).toEqual({
        message: "The Range header is not a valid list of byte ranges.",
      });
    }
  });

  test("several ranges → 206 multipart/byteranges (tests/multi-range-downloads.test.ts has the rest)", async () => {
    const response = await withRange("bytes=0-1, -2");
    expect(response.status).toBe(206);
    const type = response.headers.get("content-type") ?? "";
    const boundary = /^multipart\/byteranges; boundary=(depot-[0-9a-f]{32})$/.exec(type)?.[1];
    expect(boundary).toBeString();
    const body =
      `--${boundary}\r\nContent-Type: application/java-archive\r\nContent-Range: bytes 0-1/20\r\n\r\n01` +
      `\r\n--${boundary}\r\nContent-Type: application/java-archive\r\nContent-Range: bytes 18-19/20\r\n\r\nIJ` +
      `\r\n--${boundary}--\r\n`;
    expect(await response.text()).toBe(body);
  });

  test("If-Range: the current ETag → 206; another ETag or a date → 200 with the whole file", async () => {
    const etag = `"${sha256(CONTENT)}"`;
    const matching = await withRange("bytes=0-4", { "if-range": etag });
    expect(matching.status).toBe(206);
    expect(await matching.text()).toBe("01234");
    for (const ifRange of [`"${"0".repeat(64)}"`, "Wed, 21 Oct 2015 07:28:00 GMT"]) {
      const stale = await withRange("bytes=0-4", { "if-range": ifRange });
      expect(stale.status).toBe(200);
      expect(headersOf(stale)).toEqual(wholeHeaders());
      expect(await stale.text()).toBe("0123456789ABCDEFGHIJ");
    }
  });

  test("304 on If-None-Match: the ETag, W/ the ETag, a list holding it, or *", async () => {
    const etag = `"${sha256(CONTENT)}"`;
    for (const value of [etag, `W/${etag}`, `"abc", ${etag}`, `"abc",W/${etag}`, "*"]) {
      const response = await download(whole, { token: ownerToken, headers: { "if-none-match": value } });
      expect({ value, status: response.status }).toEqual({ value, status: 304 });
      // A 304 has no body, so no Content-Length; the rest is what a 200 would carry.
      const { "content-length": _, ...rest } = wholeHeaders();
      expect(headersOf(response)).toEqual(rest);
      expect(await response.text()).toBe("");
    }
    // Another ETag: the whole file; If-None-Match beats Range.
    const other = await download(whole, { token: ownerToken, headers: { "if-none-match": '"abc"' } });
    expect(other.status).toBe(200);
    await expectWhole(other);
    const both = await download(whole, {
      token: ownerToken,
      headers: { "if-none-match": etag, range: "bytes=0-4" },
    });
    expect(both.status).toBe(304);
  });

  test("304 and HEAD still need credentials", async () => {
    const etag = `"${sha256(CONTENT)}"`;
    await expectRefused(
      await download(whole, { token: strangerToken, headers: { "if-none-match": etag } }),
      403,
      "This action is unauthorized.",
    );
    const head = await download(whole, { method: "HEAD" });
    expect(head.status).toBe(401);
  });
});

describe("download: file names", () => {
  test("a non-ASCII name: an ASCII filename fallback and a UTF-8 filename* that decodes to the original", async () => {
    const name = "plügin – 1.0 🚀.jar";
    const version = await publish(`/api/products/${product.id}/versions`, { bytes: CONTENT, name });
    expect(version.file_name).toBe(name);
    const response = await download(version, { token: ownerToken });
    expect(response.status).toBe(200);
    const disposition = response.headers.get("content-disposition") ?? "";
    const match = /^attachment; filename="([^"]*)"; filename\*=UTF-8''(\S+)$/.exec(disposition);
    expect(match).not.toBeNull();
    const [, fallback = "", encoded = ""] = match ?? [];
    expect(fallback).toMatch(/^[\x20-\x7e]+$/);
    expect(fallback).toStartWith("pl");
    expect(fallback).toContain(" 1.0 ");
    expect(fallback).toEndWith(".jar");
    // RFC 5987 attr-chars only: no spaces, quotes or anything else that would need quoting.
    expect(encoded).toMatch(/^[A-Za-z0-9!#$&+\-.^_`|~%]+$/);
    expect(decodeURIComponent(encoded)).toBe(name);
    await response.arrayBuffer();
  });

  /** Publishes through the JSON form, where the file name arrives exactly as written. */
  async function publishJson(name: string, contentType = "application/java-archive"): Promise<Published> {
    const response = await fetch(`${base}/api/products/${product.id}/versions`, {
      method: "POST",
      headers: { ...bearer(ownerToken), "content-type": "application/json" },
      body: JSON.stringify({
        version_name: `json-${crypto.randomUUID()}`,
        title: "t",
        changelog: "c",
        file: { filename: name, content: Buffer.from(CONTENT).toString("base64"), content_type: contentType },
      }),
    });
    expect(response.status).toBe(201);
    return (await readJson(response)).data;
  }

  test("a name with quotes cannot break out of the quoted fallback", async () => {
    const name = 'my "quoted" file.jar';
    const version = await publishJson(name);
    expect(version.file_name).toBe(name);
    const response = await download(version, { token: ownerToken });
    expect(response.headers.get("content-disposition")).toBe(
      "attachment; filename=\"my _quoted_ file.jar\"; filename*=UTF-8''my%20%22quoted%22%20file.jar",
    );
    await response.arrayBuffer();
  });

  test("directories in an uploaded name are dropped (a Windows path too)", async () => {
    for (const [sent, kept] of [
      ["C:\\Users\\ci\\build\\plugin.jar", "plugin.jar"],
      ["../../etc/passwd", "passwd"],
    ]) {
      expect((await publishJson(sent as string)).file_name).toBe(kept as string);
    }
  });

  test("the same non-ASCII name through the JSON form", async () => {
    const name = "Überplugin ✓.zip";
    const version = await publishJson(name, "application/zip");
    expect(version.file_name).toBe(name);
    const file = await download(version, { token: ownerToken });
    expect(file.headers.get("content-type")).toBe("application/zip");
    const encoded = /filename\*=UTF-8''(\S+)$/.exec(file.headers.get("content-disposition") ?? "")?.[1] ?? "";
    expect(decodeURIComponent(encoded)).toBe(name);
    await file.arrayBuffer();
  });
});

describe("download: the counter and large files", () => {
  test("whole downloads count; HEAD, 304 and mid-file ranges do not", async () => {
    const counted = await createProduct(t.ctx, owner);
    const version = await publish(`/api/products/${counted.id}/versions`, { bytes: CONTENT, name: "c.jar" });
    const etag = `"${sha256(CONTENT)}"`;
    for (let i = 0; i < 3; i++) await expectWhole(await download(version, { token: ownerToken }));
    await (await download(version, { token: ownerToken, method: "HEAD" })).arrayBuffer();
    const notModified = await download(version, { token: ownerToken, headers: { "if-none-match": etag } });
    expect(notModified.status).toBe(304);
    const middle = await download(version, { token: ownerToken, headers: { range: "bytes=5-" } });
    expect(middle.status).toBe(206);
    await middle.arrayBuffer();
    const refused = await download(version, { token: strangerToken });
    expect(refused.status).toBe(403);
    await t.ctx.downloads.flush();

    const shown = await fetch(`${base}/api/products/${counted.id}`, { headers: bearer(ownerToken) });
    expect(shown.status).toBe(200);
    expect((await readJson(shown)).data.downloads).toBe("3");
  });

  test("each version counts its own downloads (a decimal string), which add up to the product's", async () => {
    const counted = await createProduct(t.ctx, owner);
    const first = await publish(`/api/products/${counted.id}/versions`, { bytes: CONTENT, name: "a.jar" });
    const second = await publish(`/api/products/${counted.id}/versions`, {
      bytes: new TextEncoder().encode("other bytes"),
      name: "b.jar",
    });
    expect(first.downloads).toBe("0");
    for (let i = 0; i < 2; i++) await expectWhole(await download(first, { token: ownerToken }));
    const other = await download(second, { token: ownerToken });
    expect(other.status).toBe(200);
    await other.arrayBuffer();
    await t.ctx.downloads.flush();

    const listed = await fetch(`${base}/api/products/${counted.id}/versions`, {
      headers: bearer(ownerToken),
    });
    const counts = (await readJson(listed)).data.map((v: { id: number; downloads: string }) => [
      v.id,
      v.downloads,
    ]);
    expect(counts).toEqual([
      [second.id, "1"],
      [first.id, "2"],
    ]);
    const one = await fetch(`${base}/api/products/${counted.id}/versions/${first.id}`, {
      headers: bearer(ownerToken),
    });
    expect((await readJson(one)).data.downloads).toBe("2");
    const product = await fetch(`${base}/api/products/${counted.id}`, { headers: bearer(ownerToken) });
    expect((await readJson(product)).data.downloads).toBe("3");
  });

  test("a 5 MiB file downloads byte-identical, whole and in a range", async () => {
    const bytes = crypto.getRandomValues(new Uint8Array(5 * MiB));
    const version = await publish(`/api/products/${product.id}/versions`, { bytes, name: "big.jar" });
    expect(version.file_size).toBe(5 * MiB);
    expect(version.sha256).toBe(sha256(bytes));

    const response = await download(version, { key: holderKey });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-length")).toBe(String(5 * MiB));
    expect(response.headers.get("repr-digest")).toBe(`sha-256=:${base64Digest(bytes)}:`);
    const body = new Uint8Array(await response.arrayBuffer());
    expect(body.byteLength).toBe(5 * MiB);
    expect(sha256(body)).toBe(sha256(bytes));
    expect(Buffer.compare(Buffer.from(body), Buffer.from(bytes))).toBe(0);

    const part = await download(version, {
      key: holderKey,
      headers: { range: `bytes=${MiB}-${2 * MiB - 1}` },
    });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes ${MiB}-${2 * MiB - 1}/${5 * MiB}`);
    expect(part.headers.get("content-length")).toBe(String(MiB));
    const slice = new Uint8Array(await part.arrayBuffer());
    expect(Buffer.compare(Buffer.from(slice), Buffer.from(bytes.subarray(MiB, 2 * MiB)))).toBe(0);
  }, 30_000);
});

describe("download: hidden, disabled and deleted products are 404 to whoever could not read them", () => {
  let hiddenProduct: { id: number };
  let hiddenVersion: Published;
  let holderOfHidden: { id: number };
  let holderOfHiddenToken: string;
  let holderOfHiddenKey: string;
  let managerToken: string;
  const NOT_FOUND = "Product not found.";

  beforeAll(async () => {
    hiddenProduct = await createProduct(t.ctx, owner, { hidden: true });
    hiddenVersion = await publish(`/api/products/${hiddenProduct.id}/versions`, {
      bytes: CONTENT,
      name: "beta.jar",
    });
    holderOfHidden = await createUser(t.ctx);
    holderOfHiddenToken = await tokenFor(t.ctx, holderOfHidden);
    holderOfHiddenKey = (await liveLicense(holderOfHidden.id, hiddenProduct.id)).key;
    const role = await createRole(t.ctx, ["products.manage"]);
    managerToken = await tokenFor(t.ctx, await createUser(t.ctx, { role: role.name }));
  });

  test("a stranger, no credentials, a foreign key or a bad signature: the same 404 as an unknown product", async () => {
    const unknown = await fetch(`${base}/api/products/999999/versions/${hiddenVersion.id}/download`, {
      headers: bearer(strangerToken),
    });
    await expectRefused(unknown, 404, NOT_FOUND);
    await expectRefused(await download(hiddenVersion, { token: strangerToken }), 404, NOT_FOUND);
    await expectRefused(await download(hiddenVersion), 404, NOT_FOUND);
    await expectRefused(await download(hiddenVersion, { key: holderKey }), 404, NOT_FOUND);
    await expectRefused(
      await fetch(`${onServer(hiddenVersion.download_url)}?expires=9999999999&signature=${"0".repeat(64)}`),
      404,
      NOT_FOUND,
    );
    // An unknown version of the hidden product does not tell the product apart either.
    const unknownVersion = await fetch(`${base}/api/products/${hiddenProduct.id}/versions/999999/download`, {
      headers: bearer(strangerToken),
    });
    await expectRefused(unknownVersion, 404, NOT_FOUND);
    const head = await download(hiddenVersion, { token: strangerToken, method: "HEAD" });
    expect(head.status).toBe(404);
  });

  test("its owner, an admin, its holders (token or key) and a valid signature still download", async () => {
    for (const token of [ownerToken, adminToken, holderOfHiddenToken]) {
      await expectWhole(await download(hiddenVersion, { token }));
    }
    await expectWhole(await download(hiddenVersion, { key: holderOfHiddenKey }));
    const signed = signUrl(hiddenVersion.download_url, t.ctx.appKey, {
      userId: holderOfHidden.id,
      expiresAt: new Date(Date.now() + 60_000),
    });
    await expectWhole(await fetch(onServer(signed)));
  });

  test("products.manage may know the product but not download: 403", async () => {
    await expectRefused(
      await download(hiddenVersion, { token: managerToken }),
      403,
      "This action is unauthorized.",
    );
  });

  test("disabled and soft-deleted products follow the same rule", async () => {
    for (const change of [{ disabled: true }, { deletedAt: new Date() }]) {
      const other = await createProduct(t.ctx, owner);
      const version = await publish(`/api/products/${other.id}/versions`, { bytes: CONTENT, name: "x.jar" });
      await t.ctx.db.update(products).set(change).where(eq(products.id, other.id));
      await expectRefused(await download(version, { token: strangerToken }), 404, NOT_FOUND);
      await expectWhole(await download(version, { token: ownerToken }));
    }
  });
});

describe("download: stored metadata never breaks a download", () => {
  test("a client's content type with CR/LF is stored as application/octet-stream (JSON form)", async () => {
    const response = await fetch(`${base}/api/products/${product.id}/versions`, {
      method: "POST",
      headers: { ...bearer(ownerToken), "content-type": "application/json" },
      body: JSON.stringify({
        version_name: `crlf-${crypto.randomUUID()}`,
        title: "t",
        changelog: "c",
        file: {
          filename: "a.bin",
          content: Buffer.from(CONTENT).toString("base64"),
          content_type: "text/html\r\nSet-Cookie: stolen=1",
        },
      }),
    });
    expect(response.status).toBe(201);
    const version: Published = (await readJson(response)).data;
    const got = await download(version, { token: ownerToken });
    expect(got.headers.get("content-type")).toBe("application/octet-stream");
    expect(got.headers.get("set-cookie")).toBeNull();
    await expectWhole(got);
  });

  test("a row stored before the check, with CR/LF in its type, still downloads", async () => {
    const version = await publish(`/api/products/${product.id}/versions`, {
      bytes: CONTENT,
      name: "legacy.jar",
    });
    await t.ctx.db
      .update(artifacts)
      .set({ contentType: "text/plain\r\nX-Injected: yes" })
      .where(eq(artifacts.versionId, version.id));
    const got = await download(version, { token: ownerToken });
    expect(got.headers.get("content-type")).toBe("application/octet-stream");
    expect(got.headers.get("x-injected")).toBeNull();
    await expectWhole(got);
  });
});

describe("download: a missing release file", () => {
  test("GET and HEAD → 410 JSON, logged at error with the version id and the request's real status", async () => {
    const version = await publish(`/api/products/${product.id}/versions`, {
      bytes: CONTENT,
      name: "gone.jar",
    });
    const [row] = await t.ctx.db.select().from(artifacts).where(eq(artifacts.versionId, version.id));
    await t.ctx.releases.remove(row?.storageKey ?? "missing");
    recorder.lines.length = 0;

    await expectRefused(await download(version, { token: ownerToken }), 410, "The release file is missing.");
    const head = await download(version, { token: ownerToken, method: "HEAD" });
    expect(head.status).toBe(410);
    expect(head.headers.get("content-type")).toContain("application/json");

    await Bun.sleep(20); // the request line is written after the response
    expect(recorder.lines.filter((line) => line.msg === "release file missing")).toEqual([
      expect.objectContaining({ level: "error", version_id: version.id, found_size: null }),
      expect.objectContaining({ level: "error", version_id: version.id, found_size: null }),
    ]);
    // The publish's own line may land after the reset above: only this version's downloads count.
    const requests = recorder.lines.filter(
      (line) => line.msg === "request" && String(line.path).endsWith(`/versions/${version.id}/download`),
    );
    expect(requests.map((line) => [line.method, line.status])).toEqual([
      ["GET", 410],
      ["HEAD", 410],
    ]);
  });
});

describe("download: never as part of a page (Sec-Fetch-Dest)", () => {
  const REFUSED = "A release file is only downloaded, never loaded as part of a page.";

  test("an image, script, style, frame or any other sub-resource → 403 JSON, not counted", async () => {
    const counted = await createProduct(t.ctx, owner);
    const version = await publish(`/api/products/${counted.id}/versions`, { bytes: CONTENT, name: "s.jar" });
    for (const destination of [
      "image",
      "script",
      "style",
      "iframe",
      "frame",
      "video",
      "font",
      "IMAGE",
      "x",
    ]) {
      const response = await download(version, {
        token: ownerToken,
        headers: { "sec-fetch-dest": destination },
      });
      expect(response.headers.get("content-type")).toStartWith("application/json");
      expect({ destination, status: response.status, body: await readJson(response) }).toEqual({
        destination,
        status: 403,
        body: { message: REFUSED },
      });
    }
    // Refused whatever it would act for: a signed link and HEAD too.
    const link = signUrl(version.download_url, t.ctx.appKey, {
      userId: owner.id,
      expiresAt: new Date(Date.now() + 60_000),
    });
    await expectRefused(
      await fetch(onServer(link), { headers: { "sec-fetch-dest": "image" } }),
      403,
      REFUSED,
    );
    const head = await download(version, {
      token: ownerToken,
      method: "HEAD",
      headers: { "sec-fetch-dest": "image" },
    });
    expect(head.status).toBe(403);

    // A navigation, a script's fetch, or no header at all (curl, the CLI, older browsers) downloads.
    const passing: Record<string, string>[] = [
      { "sec-fetch-dest": "document" },
      { "sec-fetch-dest": "empty" },
      {},
    ];
    for (const headers of passing) {
      await expectWhole(await download(version, { token: ownerToken, headers }));
    }
    await t.ctx.downloads.flush();
    const shown = await fetch(`${base}/api/products/${counted.id}`, { headers: bearer(ownerToken) });
    expect((await readJson(shown)).data.downloads).toBe("3");
  });
});

describe("download: the dashboard's session cookie (its Download links)", () => {
  test("downloads as its user's token would: the owner's 200, another user's 404 or 403, a dead cookie is none", async () => {
    const PASSWORD = "correct horse battery";
    const vendor = await userWithPassword(t.ctx, PASSWORD, { role: "vendor" });
    const own = await createProduct(t.ctx, vendor, { hidden: true });
    const vendorToken = await tokenFor(t.ctx, vendor);
    const form = new FormData();
    form.append("version_name", "1.0.0");
    form.append("title", "t");
    form.append("changelog", "c");
    form.append("file", new File([CONTENT], "own.jar"));
    const published = await fetch(`${base}/api/products/${own.id}/versions`, {
      method: "POST",
      headers: bearer(vendorToken),
      body: form,
    });
    const version = (await readJson(published)).data;
    const path = `/api/products/${own.id}/versions/${version.id}/download`;

    const session = await signIn(base, vendor.email, PASSWORD);
    const ok = await fetch(`${base}${path}`, { headers: { cookie: session.cookie } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("content-disposition")).toContain("own.jar");
    expect(new Uint8Array(await ok.arrayBuffer())).toEqual(CONTENT);

    // Someone else's session: the hidden product does not exist for them; a listed one is 403.
    const customer = await userWithPassword(t.ctx, PASSWORD);
    const theirs = await signIn(base, customer.email, PASSWORD);
    const hidden = await fetch(`${base}${path}`, { headers: { cookie: theirs.cookie } });
    expect(hidden.status).toBe(404);
    expect(await readJson(hidden)).toEqual({ message: "Product not found." });
    const listed = await fetch(`${base}/api/products/${product.id}/versions/${whole.id}/download`, {
      headers: { cookie: theirs.cookie },
    });
    expect(listed.status).toBe(403);
    expect(await readJson(listed)).toEqual({ message: "This action is unauthorized." });

    // A signed-out cookie is no credential at all; a bearer header still decides on its own.
    await fetch(`${base}/api/auth/sign-out`, {
      method: "POST",
      headers: { cookie: session.cookie, "x-csrf-token": session.csrf, "sec-fetch-site": "same-origin" },
    });
    // (As with no credential: the hidden product is unknown, a listed one asks for credentials.)
    const dead = await fetch(`${base}${path}`, { headers: { cookie: session.cookie } });
    expect(dead.status).toBe(404);
    const deadListed = await fetch(`${base}/api/products/${product.id}/versions/${whole.id}/download`, {
      headers: { cookie: session.cookie },
    });
    expect(deadListed.status).toBe(401);
    expect(await readJson(deadListed)).toEqual({ message: "Unauthenticated." });
    const alive = await signIn(base, vendor.email, PASSWORD);
    const byStranger = await fetch(`${base}${path}`, {
      headers: { cookie: alive.cookie, ...bearer(strangerToken) },
    });
    expect(byStranger.status).toBe(404);
  });
});
