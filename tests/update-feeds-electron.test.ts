import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { and, eq } from "drizzle-orm";
import { updateChecks } from "../src/db/schema/index.ts";
import { createLicense, revokeLicense } from "../src/features/licenses/service.ts";
import { UpdateCheckCounter } from "../src/features/updates/check-counter.ts";
import { deleteOldUpdateChecks } from "../src/features/updates/sweep.ts";
import { signUrl } from "../src/signed-url.ts";
import { bearer, readJson, recordingLogger, startTestApp, type TestApp } from "./helpers/app.ts";
import {
  checkForUpdate,
  downloadDifferential,
  downloadFull,
  genericClient,
  writeBlockmap,
} from "./helpers/electron-updater.ts";
import { createProduct, createUser, tokenFor } from "./helpers/factories.ts";
import { unusedPort } from "./helpers/ports.ts";
import { license, publishRelease } from "./helpers/releases.ts";

/**
 * The electron-updater feed (README, "Updates: Electron") driven by electron-updater's own code: its
 * GenericProvider reads `latest.yml` with the license in `Authorization: License …`, its executor
 * downloads the file and checks the sha512, and its differential downloader fetches both blockmaps
 * and only the changed blocks of the new installer. Also who may read a feed, the files route, and
 * the daily count of feed requests.
 */

let t: TestApp;
let base: string;
let product: { id: number };
let holderKey: string;
let otherProductKey: string;
let revokedKey: string;
let holderToken: string;
let holderId: number;
let strangerToken: string;
const dir = mkdtempSync(join(tmpdir(), "electron-feed-"));
const ANY_KEY = { id: 0, creatorId: null };
/** The request log, to see how many requests a download took. */
const recorder = recordingLogger("info");

const sha512 = (bytes: Uint8Array) => createHash("sha512").update(bytes).digest("base64");
const OLD = randomBytes(8 * 1024 * 1024);
/** 1.1.0's installer: 1.0.0's with 5 % rewritten in place, in five places (five ranges to fetch). */
const NEW = Buffer.from(OLD);
for (const at of [0.1, 0.3, 0.5, 0.7, 0.9]) randomBytes(80 * 1024).copy(NEW, Math.floor(OLD.length * at));
const BETA = randomBytes(64 * 1024);
const MAC_OLD = randomBytes(1000);
const MAC_NEW = randomBytes(1200);
/** Release notes that would break a YAML file written without quoting. */
// Written with CRLF line ends: a multipart form field's line breaks arrive as CRLF, and are kept.
const HOSTILE_NOTES = 'Fixed: "quotes", a: colon\r\n- a list?\r\n#not a comment\r\n\u2028 and 1.10: done';

/** The installer and its blockmap as electron-builder leaves them. */
function installer(name: string, bytes: Uint8Array) {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  const { blockmap } = writeBlockmap(path);
  return {
    name,
    bytes,
    platform: "windows" as const,
    arch: "x86_64" as const,
    blockmap: readFileSync(blockmap),
  };
}

async function liveLicense(ownerId: number, creatorId: number, productId: number) {
  return createLicense(t.ctx, ANY_KEY, {
    ownerId: String(ownerId),
    creatorId: String(creatorId),
    productId: String(productId),
  });
}

beforeAll(async () => {
  // electron-updater follows the feed's absolute file URLs: APP_URL is the listening server itself.
  const port = unusedPort();
  t = await startTestApp({ env: { APP_URL: `http://127.0.0.1:${port}` }, log: recorder.log, jobs: "send" });
  base = t.listen(port);
  const owner = await createUser(t.ctx, { role: "vendor" });
  const ownerToken = await tokenFor(t.ctx, owner);
  product = await createProduct(t.ctx, owner);
  const otherProduct = await createProduct(t.ctx, owner);
  const holder = await createUser(t.ctx);
  holderToken = await tokenFor(t.ctx, holder);
  holderId = holder.id;
  holderKey = (await liveLicense(holder.id, owner.id, product.id)).key;
  otherProductKey = (await liveLicense(holder.id, owner.id, otherProduct.id)).key;
  const revoked = await liveLicense(holder.id, owner.id, product.id);
  await revokeLicense(t.ctx, ANY_KEY, revoked.id);
  revokedKey = revoked.key;
  strangerToken = await tokenFor(t.ctx, await createUser(t.ctx));

  await publishRelease(base, ownerToken, product.id, {
    name: "1.0.0",
    files: [
      installer("App-Setup-1.0.0.exe", OLD),
      { name: "App-1.0.0-mac.zip", bytes: MAC_OLD, platform: "darwin", arch: "universal" },
    ],
  });
  await publishRelease(base, ownerToken, product.id, {
    name: "1.1.0",
    changelog: HOSTILE_NOTES,
    files: [
      installer("App-Setup-1.1.0.exe", NEW),
      { name: "App-1.1.0-mac.zip", bytes: MAC_NEW, platform: "darwin", arch: "universal" },
    ],
  });
  await publishRelease(base, ownerToken, product.id, {
    name: "2.0.0-beta.1",
    files: [{ name: "App-Setup-2.0.0-beta.1.exe", bytes: BETA, platform: "windows", arch: "x86_64" }],
  });
}, 60_000);

afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

const feedUrl = () => `${base}/updates/${product.id}/electron/`;
const fileUrl = (version: string, name: string) => `${base}/updates/${product.id}/files/${version}/${name}`;

describe("electron-updater's generic provider", () => {
  test("reads latest.yml: the newest stable version, its file, sha512 and size, and the notes as sent", async () => {
    const client = genericClient({ url: feedUrl(), platform: "win32", headers: license(holderKey) });
    const { info, files } = await checkForUpdate(client);
    expect(info.version).toBe("1.1.0");
    expect(info.releaseNotes).toBe(HOSTILE_NOTES);
    expect(new Date(info.releaseDate).getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(info).not.toHaveProperty("stagingPercentage");
    expect(files.map((file) => file.url.href)).toEqual([fileUrl("1.1.0", "App-Setup-1.1.0.exe")]);
    expect(files[0]?.info).toMatchObject({ sha512: sha512(NEW), size: NEW.length });
  });

  test("the yml as sent: YAML, not cached, every string quoted", async () => {
    const response = await fetch(`${feedUrl()}latest.yml`, { headers: license(holderKey) });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/yaml");
    expect(response.headers.get("cache-control")).toBe("no-store");
    const text = await response.text();
    expect(text.split("\n").slice(0, 2)).toEqual(['version: "1.1.0"', "files:"]);
    expect(text).toContain(`\n    size: ${NEW.length}\n`);
    expect(text).toContain(`\npath: "${fileUrl("1.1.0", "App-Setup-1.1.0.exe")}"\n`);
    expect(text).toContain(`\nsha512: "${sha512(NEW)}"\n`);
  });

  test("beta.yml offers the beta; latest-mac.yml the mac zip; a platform with nothing → 404 JSON", async () => {
    const beta = await checkForUpdate(
      genericClient({ url: feedUrl(), platform: "win32", channel: "beta", headers: license(holderKey) }),
    );
    expect(beta.info.version).toBe("2.0.0-beta.1");
    const mac = await checkForUpdate(
      genericClient({ url: feedUrl(), platform: "darwin", headers: license(holderKey) }),
    );
    expect(mac.info.version).toBe("1.1.0");
    expect(mac.files.map((file) => file.url.href)).toEqual([fileUrl("1.1.0", "App-1.1.0-mac.zip")]);
    const linux = genericClient({ url: feedUrl(), platform: "linux", headers: license(holderKey) });
    await expect(checkForUpdate(linux)).rejects.toMatchObject({ code: "ERR_UPDATER_CHANNEL_FILE_NOT_FOUND" });
    const response = await fetch(`${feedUrl()}latest-linux.yml`, { headers: license(holderKey) });
    expect(response.status).toBe(404);
    expect(await readJson(response)).toEqual({ message: "Update not found." });
  });

  test("downloads the full update with the license; the sha512 matches", async () => {
    const client = genericClient({ url: feedUrl(), platform: "win32", headers: license(holderKey) });
    const [file] = (await checkForUpdate(client)).files;
    if (!file) throw new Error("no file");
    const destination = join(dir, "full-download.exe");
    await downloadFull(client, file, destination);
    expect(sha512(readFileSync(destination))).toBe(sha512(NEW));
  });

  test.each([
    ["several ranges per request (multipart/byteranges), as electron-updater asks by default", true],
    ["one range per request", false],
  ])(
    "downloads a differential update, %s: the changed blocks only, the sha512 matches",
    async (_, multipleRanges) => {
      const client = genericClient({
        url: feedUrl(),
        platform: "win32",
        headers: license(holderKey),
        multipleRanges,
      });
      const [file] = (await checkForUpdate(client)).files;
      if (!file) throw new Error("no file");
      const oldFile = join(dir, "installed-1.0.0.exe");
      writeFileSync(oldFile, OLD);
      const newFile = join(dir, `differential-${multipleRanges}.exe`);
      const logged = recorder.lines.length;
      const log = await downloadDifferential(
        client,
        file,
        { old: "1.0.0", new: "1.1.0" },
        { oldFile, newFile },
      );
      expect(sha512(readFileSync(newFile))).toBe(sha512(NEW));
      // Five changed places: one request for all of them, or one request each.
      const requests = multipleRanges ? 1 : 5;
      expect(await partialRequests(logged, file.url.pathname, requests)).toBe(requests);
      const planned = log.lines.find((line) => line.startsWith("Full:")) ?? "";
      const percent = Number(/\((\d+)%\)/.exec(planned)?.[1]);
      expect(percent).toBeGreaterThan(0);
      expect(percent).toBeLessThanOrEqual(10);
    },
  );
});

test("electron-builder's own names (spaces, build metadata): the provider's file and blockmap URLs resolve", async () => {
  const owner = await createUser(t.ctx, { role: "vendor" });
  const named = await createProduct(t.ctx, owner);
  const token = await tokenFor(t.ctx, owner);
  const key = (await liveLicense((await createUser(t.ctx)).id, owner.id, named.id)).key;
  const file = (version: string) => ({
    name: `My App Setup ${version}.exe`,
    bytes: new TextEncoder().encode(`installer ${version}`),
    platform: "windows" as const,
    arch: "x86_64" as const,
    blockmap: new TextEncoder().encode(`blockmap ${version}`),
  });
  for (const version of ["1.2.0+5", "1.3.0+6"]) {
    await publishRelease(base, token, named.id, { name: version, files: [file(version)] });
  }
  const client = genericClient({
    url: `${base}/updates/${named.id}/electron/`,
    platform: "win32",
    headers: license(key),
  });
  const { info, files } = await checkForUpdate(client);
  expect(info.version).toBe("1.3.0+6");
  const [resolved] = files;
  if (!resolved) throw new Error("no file");
  const [oldMap, newMap] = await client.provider.getBlockMapFiles(resolved.url, "1.2.0+5", "1.3.0+6");
  for (const [url, body] of [
    [resolved.url, "installer 1.3.0+6"],
    [newMap, "blockmap 1.3.0+6"],
    [oldMap, "blockmap 1.2.0+5"],
  ] as const) {
    const response = await fetch(url as URL, { headers: license(key) });
    expect({ url: String(url), status: response.status }).toEqual({ url: String(url), status: 200 });
    expect(await response.text()).toBe(body);
  }
});

describe("who may read a feed", () => {
  const latest = (headers: Record<string, string>) => fetch(`${feedUrl()}latest.yml`, { headers });

  test("no key → 401 asking for a License; a bearer token is no feed credential", async () => {
    for (const headers of [{}, bearer(holderToken)]) {
      const response = await latest(headers);
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe("License");
      expect(await readJson(response)).toEqual({ message: "Unauthenticated." });
    }
  });

  test("a key of another product, a revoked key, an unknown key → 403 JSON, no feed", async () => {
    for (const key of [otherProductKey, revokedKey, "AAAAA-BBBBB-CCCCC-DDDDD-EEEEE"]) {
      const response = await latest(license(key));
      expect({ key, status: response.status }).toEqual({ key, status: 403 });
      expect(await readJson(response)).toEqual({ message: "This license does not hold this product." });
    }
  });

  test("the scheme and the key are read in any case; an unknown file name is a 404", async () => {
    expect((await latest({ authorization: `license ${holderKey.toLowerCase()}` })).status).toBe(200);
    const response = await fetch(`${feedUrl()}nightly.yml`, { headers: license(holderKey) });
    expect(response.status).toBe(404);
    expect(await readJson(response)).toEqual({ message: "Update channel file not found." });
  });

  test("a free product's feed needs no key", async () => {
    const owner = await createUser(t.ctx, { role: "vendor" });
    const free = await createProduct(t.ctx, owner, { free: true });
    await publishRelease(base, await tokenFor(t.ctx, owner), free.id, {
      name: "0.1.0",
      files: [{ name: "Free-0.1.0.exe", bytes: randomBytes(100), platform: "windows", arch: "x86_64" }],
    });
    const response = await fetch(`${base}/updates/${free.id}/electron/latest.yml`);
    expect(response.status).toBe(200);
    expect(await response.text()).toStartWith('version: "0.1.0"\n');
  });

  test("a hidden product's feed is a 404 to a key that does not hold it, and open to a holder", async () => {
    const owner = await createUser(t.ctx, { role: "vendor" });
    const hidden = await createProduct(t.ctx, owner, { hidden: true });
    await publishRelease(base, await tokenFor(t.ctx, owner), hidden.id, {
      name: "3.0.0",
      files: [{ name: "Hidden-3.0.0.exe", bytes: randomBytes(100), platform: "windows", arch: "x86_64" }],
    });
    const url = `${base}/updates/${hidden.id}/electron/latest.yml`;
    const refused = await fetch(url, { headers: license(holderKey) });
    expect(refused.status).toBe(404);
    expect(await readJson(refused)).toEqual({ message: "Product not found." });
    const key = (await liveLicense((await createUser(t.ctx)).id, owner.id, hidden.id)).key;
    expect((await fetch(url, { headers: license(key) })).status).toBe(200);
  });
});

describe("the files a feed points at", () => {
  let url: string;
  beforeAll(() => {
    url = fileUrl("1.1.0", "App-Setup-1.1.0.exe");
  });

  test("the License header downloads the file, with its ETag and ranges", async () => {
    const response = await fetch(url, { headers: license(holderKey) });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-length")).toBe(String(NEW.length));
    expect(response.headers.get("content-disposition")).toBe('attachment; filename="App-Setup-1.1.0.exe"');
    const etag = response.headers.get("etag");
    expect(etag).toBe(`"${createHash("sha256").update(NEW).digest("hex")}"`);
    expect(sha512(new Uint8Array(await response.arrayBuffer()))).toBe(sha512(NEW));
    const again = await fetch(url, { headers: { ...license(holderKey), "if-none-match": etag as string } });
    expect(again.status).toBe(304);
    const range = await fetch(url, { headers: { ...license(holderKey), range: "bytes=10-19" } });
    expect(range.status).toBe(206);
    expect(range.headers.get("content-range")).toBe(`bytes 10-19/${NEW.length}`);
    expect(Buffer.from(await range.arrayBuffer())).toEqual(NEW.subarray(10, 20));
  });

  test("HEAD answers the headers alone; a signed link of a holder downloads it, a tampered one is refused", async () => {
    const head = await fetch(url, { method: "HEAD", headers: license(holderKey) });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(String(NEW.length));
    expect(await head.text()).toBe("");
    const signed = signUrl(url, t.ctx.appKey, { userId: holderId, expiresAt: new Date(Date.now() + 60_000) });
    const linked = await fetch(signed);
    expect(linked.status).toBe(200);
    expect(sha512(new Uint8Array(await linked.arrayBuffer()))).toBe(sha512(NEW));
    const tampered = await fetch(signed.replace("App-Setup-1.1.0.exe", "App-1.1.0-mac.zip"));
    expect(tampered.status).toBe(403);
    expect(await readJson(tampered)).toEqual({ message: "Invalid signature." });
  });

  test("a holder's bearer token downloads it; the blockmap is at the file's URL + .blockmap", async () => {
    expect((await fetch(url, { headers: bearer(holderToken) })).status).toBe(200);
    const blockmap = await fetch(`${url}.blockmap`, { headers: license(holderKey) });
    expect(blockmap.status).toBe(200);
    const bytes = Buffer.from(await blockmap.arrayBuffer());
    expect(bytes).toEqual(readFileSync(join(dir, "App-Setup-1.1.0.exe.blockmap")));
  });

  test("no credential → 401, a stranger's token or another product's key → 403, unknown names → 404", async () => {
    const anonymous = await fetch(url);
    expect(anonymous.status).toBe(401);
    expect(await readJson(anonymous)).toEqual({ message: "Unauthenticated." });
    for (const headers of [bearer(strangerToken), license(otherProductKey)]) {
      const response = await fetch(url, { headers });
      expect(response.status).toBe(403);
      expect((await readJson(response)).message).toBeString();
    }
    for (const [path, message] of [
      [fileUrl("9.9.9", "App-Setup-1.1.0.exe"), "Version not found."],
      [fileUrl("1.1.0", "App-Setup-1.0.0.exe"), "File not found."],
      [fileUrl("1.1.0", "App-1.1.0-mac.zip.blockmap"), "File not found."],
    ] as const) {
      const response = await fetch(path, { headers: license(holderKey) });
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
      expect(await readJson(response)).toEqual({ message });
    }
  });
});

describe("feed requests are counted per day", () => {
  test("a client's invented versions fold into one row; the product's own versions are counted by name", async () => {
    const { lines, log } = recordingLogger("warn");
    const counter = new UpdateCheckCounter(t.ctx.db, log, true, 60_000);
    const poll = (currentVersion: string) =>
      counter.add({
        productId: product.id,
        feed: "tauri",
        channel: "dev",
        platform: "linux",
        currentVersion,
      });
    for (let i = 0; i < 3000; i++) poll(`9.9.${i}`);
    poll("1.0.0");
    poll("1.0.0");
    poll("1.1.0");
    await counter.flush();
    const rows = await t.ctx.db
      .select({ currentVersion: updateChecks.currentVersion, checks: updateChecks.checks })
      .from(updateChecks)
      .where(and(eq(updateChecks.productId, product.id), eq(updateChecks.channel, "dev")));
    expect(rows.sort((a, b) => a.currentVersion.localeCompare(b.currentVersion))).toEqual([
      { currentVersion: "(other)", checks: 3000 },
      { currentVersion: "1.0.0", checks: 2 },
      { currentVersion: "1.1.0", checks: 1 },
    ]);
    expect(lines).toEqual([]);
  });

  test("past 10,000 distinct rows in one interval the rest are dropped, and the drop logged", async () => {
    const { lines, log } = recordingLogger("warn");
    const counter = new UpdateCheckCounter(t.ctx.db, log, true, 60_000);
    for (let i = 0; i <= 10_000; i++) {
      counter.add({
        productId: product.id,
        feed: "tauri",
        channel: "alpha",
        platform: `p${i}`,
        currentVersion: "",
      });
    }
    await counter.flush();
    const rows = await t.ctx.db
      .select()
      .from(updateChecks)
      .where(and(eq(updateChecks.productId, product.id), eq(updateChecks.channel, "alpha")));
    expect(rows).toHaveLength(10_000);
    expect(lines.map((line) => [line.msg, line.dropped])).toEqual([
      ["update checks not counted: too many distinct rows in one interval", 1],
    ]);
  });

  test("through the Tauri feed: 200 invented versions from one license are one row", async () => {
    await t.ctx.updateChecks.flush();
    for (let i = 0; i < 200; i++) {
      const response = await fetch(`${base}/updates/${product.id}/tauri/linux/x86_64/7.7.${i}?channel=beta`, {
        headers: license(holderKey),
      });
      expect(response.status).toBe(204);
    }
    await t.ctx.updateChecks.flush();
    const rows = await t.ctx.db
      .select({ currentVersion: updateChecks.currentVersion, checks: updateChecks.checks })
      .from(updateChecks)
      .where(
        and(
          eq(updateChecks.productId, product.id),
          eq(updateChecks.feed, "tauri"),
          eq(updateChecks.channel, "beta"),
        ),
      );
    expect(rows).toEqual([{ currentVersion: "(other)", checks: 200 }]);
  });

  test("days older than STATS_RETENTION_DAYS are swept; the days inside it stay", async () => {
    const day = (ago: number) => new Date(Date.now() - ago * 86_400_000).toISOString().slice(0, 10);
    await t.ctx.db.insert(updateChecks).values(
      [0, 29, 30, 31, 400].map((ago) => ({
        productId: product.id,
        day: day(ago),
        feed: "sparkle",
        channel: "",
        platform: "darwin",
        currentVersion: "",
        checks: ago + 1,
      })),
    );
    const removed = await deleteOldUpdateChecks({
      db: t.ctx.db,
      config: { ...t.ctx.config, statsRetentionDays: 30 },
    });
    expect(removed).toBe(2);
    const left = await t.ctx.db
      .select({ day: updateChecks.day })
      .from(updateChecks)
      .where(and(eq(updateChecks.productId, product.id), eq(updateChecks.feed, "sparkle")));
    expect(left.map((row) => row.day).sort()).toEqual([day(30), day(29), day(0)]);
  });

  test("by product, feed, channel and platform", async () => {
    await t.ctx.updateChecks.flush();
    const before = await countOf("stable", "darwin");
    for (let i = 0; i < 3; i++) {
      expect((await fetch(`${feedUrl()}latest-mac.yml`, { headers: license(holderKey) })).status).toBe(200);
    }
    // A refused request is not a check.
    expect((await fetch(`${feedUrl()}latest-mac.yml`)).status).toBe(401);
    await t.ctx.updateChecks.flush();
    expect(await countOf("stable", "darwin")).toBe(before + 3);
  });
});

/** How many 206s of `path` the request log has had since line `from` (waiting up to 2 s for `expected`). */
async function partialRequests(from: number, path: string, expected: number): Promise<number> {
  const count = () =>
    recorder.lines
      .slice(from)
      .filter((line) => line.msg === "request" && line.path === path && line.status === 206).length;
  for (let waited = 0; count() < expected && waited < 2000; waited += 50) await Bun.sleep(50);
  return count();
}

async function countOf(channel: string, platform: string): Promise<number> {
  const rows = await t.ctx.db
    .select()
    .from(updateChecks)
    .where(
      and(
        eq(updateChecks.productId, product.id),
        eq(updateChecks.feed, "electron"),
        eq(updateChecks.channel, channel),
        eq(updateChecks.platform, platform),
      ),
    );
  expect(
    rows.every((row) => row.day === new Date().toISOString().slice(0, 10) && row.currentVersion === ""),
  ).toBe(true);
  return rows.reduce((sum, row) => sum + row.checks, 0);
}
