import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { generateKeyPairSync, randomBytes, sign, verify } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { and, eq } from "drizzle-orm";
import { updateChecks } from "../src/db/schema/index.ts";
import { createLicense } from "../src/features/licenses/service.ts";
import { readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { parseAppcast } from "./helpers/appcast.ts";
import { createProduct, createUser, tokenFor } from "./helpers/factories.ts";
import { unusedPort } from "./helpers/ports.ts";
import { license, publishRelease } from "./helpers/releases.ts";
import { fetchJwks, readSigned, verifyAnswer } from "./helpers/verify-signature.ts";

/**
 * The other updaters' feeds (README, "Updates: Tauri", "Sparkle", "Squirrel.Mac", "The upgrade
 * check"), each checked the way its client checks it: Tauri's signature with Debian's `minisign -V`
 * against the vendor's public key, Sparkle's edSignature with Ed25519 against the vendor's key after
 * an XML parser read the appcast, and the upgrade answer's RFC 9421 signature as validate's.
 */

let t: TestApp;
let base: string;
let product: { id: number };
let holderKey: string;
const dir = mkdtempSync(join(tmpdir(), "update-formats-"));
const ANY_KEY = { id: 0, creatorId: null };

/** The vendor's Tauri updater key (minisign, no password), made with the tool vendors use. */
const minisignPublic = join(dir, "updater.pub");
const minisignSecret = join(dir, "updater.key");
/** The vendor's Sparkle key (`SUPublicEDKey` in the app). */
const sparkleKeys = generateKeyPairSync("ed25519");

/** Markdown release notes, with CRLF line ends as a multipart form field carries them. */
const NOTES = "## Faster\r\n\r\nSearch is **faster** & <safer>.";
const TAURI_OLD = randomBytes(2000);
const TAURI_NEW = randomBytes(3000);
const MAC_NEW = randomBytes(2500);
const MAC_BETA = randomBytes(2600);

/** What `tauri signer sign` writes to `X.sig`: base64 of the minisign signature file. */
function tauriSignature(name: string, bytes: Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  execFileSync("minisign", ["-S", "-s", minisignSecret, "-m", path], { input: "" });
  return readFileSync(`${path}.minisig`).toString("base64");
}

const edSignature = (bytes: Uint8Array) => sign(null, bytes, sparkleKeys.privateKey).toString("base64");

beforeAll(async () => {
  execFileSync("minisign", ["-G", "-W", "-p", minisignPublic, "-s", minisignSecret]);
  const port = unusedPort();
  t = await startTestApp({ env: { APP_URL: `http://127.0.0.1:${port}` }, jobs: "send" });
  base = t.listen(port);
  const owner = await createUser(t.ctx, { role: "vendor" });
  const ownerToken = await tokenFor(t.ctx, owner);
  product = await createProduct(t.ctx, owner, { name: "Tools & <Things>" });
  const holder = await createUser(t.ctx);
  holderKey = (
    await createLicense(t.ctx, ANY_KEY, {
      ownerId: String(holder.id),
      creatorId: String(owner.id),
      productId: String(product.id),
    })
  ).key;
  await publishRelease(base, ownerToken, product.id, {
    name: "1.0.0",
    files: [
      {
        name: "tools_1.0.0_amd64.AppImage.tar.gz",
        bytes: TAURI_OLD,
        platform: "linux",
        arch: "x86_64",
        signature: tauriSignature("old.tar.gz", TAURI_OLD),
      },
    ],
  });
  await publishRelease(base, ownerToken, product.id, {
    name: "1.1.0",
    changelog: NOTES,
    files: [
      {
        name: "tools_1.1.0_amd64.AppImage.tar.gz",
        bytes: TAURI_NEW,
        platform: "linux",
        arch: "x86_64",
        signature: tauriSignature("new.tar.gz", TAURI_NEW),
      },
      {
        name: "Tools-1.1.0-mac.zip",
        bytes: MAC_NEW,
        platform: "darwin",
        arch: "universal",
        signature: edSignature(MAC_NEW),
      },
    ],
  });
  await publishRelease(base, ownerToken, product.id, {
    name: "1.2.0-beta.2",
    critical: true,
    files: [
      {
        name: "Tools-1.2.0-beta.2-mac.zip",
        bytes: MAC_BETA,
        platform: "darwin",
        arch: "aarch64",
        signature: edSignature(MAC_BETA),
      },
    ],
  });
}, 60_000);

afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

const updates = () => `${base}/updates/${product.id}`;
const fileUrl = (version: string, name: string) => `${updates()}/files/${version}/${name}`;

async function downloadTo(url: string, name: string): Promise<string> {
  const response = await fetch(url, { headers: license(holderKey) });
  expect(response.status).toBe(200);
  const path = join(dir, name);
  writeFileSync(path, Buffer.from(await response.arrayBuffer()));
  return path;
}

describe("Tauri v2", () => {
  test("an older client gets the update; minisign -V verifies the served signature on the served file", async () => {
    const response = await fetch(`${updates()}/tauri/linux/x86_64/1.0.0`, { headers: license(holderKey) });
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const update = await readJson(response);
    expect(update).toEqual({
      version: "1.1.0",
      notes: NOTES,
      pub_date: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      url: fileUrl("1.1.0", "tools_1.1.0_amd64.AppImage.tar.gz"),
      signature: expect.any(String),
    });
    const file = await downloadTo(update.url, "tauri-update.tar.gz");
    writeFileSync(`${file}.minisig`, Buffer.from(update.signature, "base64"));
    const verified = execFileSync(
      "minisign",
      ["-V", "-p", minisignPublic, "-m", file, "-x", `${file}.minisig`],
      {
        encoding: "utf8",
      },
    );
    expect(verified).toContain("Signature and comment signature verified");
    // The same signature does not verify another file: the check can fail.
    const other = join(dir, "other.tar.gz");
    writeFileSync(other, TAURI_OLD);
    expect(() =>
      execFileSync("minisign", ["-V", "-p", minisignPublic, "-m", other, "-x", `${file}.minisig`], {
        stdio: "pipe",
      }),
    ).toThrow();
  });

  test("the newest client (or a newer one) gets 204 with no body; a bundle suffix is accepted", async () => {
    for (const path of [
      "tauri/linux/x86_64/1.1.0",
      "tauri/linux/x86_64/v2.0.0",
      "tauri/linux-appimage/x86_64/1.1.0",
    ]) {
      const response = await fetch(`${updates()}/${path}`, { headers: license(holderKey) });
      expect({ path, status: response.status }).toEqual({ path, status: 204 });
      expect(await response.text()).toBe("");
    }
  });

  test("a platform without files → 204; bad target, arch, version or channel → 422 per field", async () => {
    expect(
      (await fetch(`${updates()}/tauri/windows/x86_64/1.0.0`, { headers: license(holderKey) })).status,
    ).toBe(204);
    const response = await fetch(`${updates()}/tauri/beos/sparc/one.two?channel=nightly`, {
      headers: license(holderKey),
    });
    expect(response.status).toBe(422);
    const body = await readJson(response);
    expect(Object.keys(body.errors).sort()).toEqual(["arch", "channel", "current_version", "target"]);
    expect(body.errors.current_version).toEqual([
      "The current_version must be a semantic version (like 1.2.3 or 2.0.0-beta.1).",
    ]);
  });

  test("no key → 401 before the input is looked at", async () => {
    const response = await fetch(`${updates()}/tauri/beos/sparc/one.two`);
    expect(response.status).toBe(401);
    expect(await readJson(response)).toEqual({ message: "Unauthenticated." });
  });

  test("the client's version is counted", async () => {
    await fetch(`${updates()}/tauri/linux/x86_64/1.0.0?channel=beta`, { headers: license(holderKey) });
    await t.ctx.updateChecks.flush();
    const [row] = await t.ctx.db
      .select()
      .from(updateChecks)
      .where(
        and(
          eq(updateChecks.productId, product.id),
          eq(updateChecks.feed, "tauri"),
          eq(updateChecks.channel, "beta"),
        ),
      );
    expect(row).toMatchObject({ platform: "linux", currentVersion: "1.0.0", checks: 1 });
  });
});

describe("Sparkle 2", () => {
  test("the appcast parses: newest first, channels, critical, notes as HTML, and each edSignature verifies", async () => {
    const response = await fetch(`${updates()}/sparkle/appcast.xml`, { headers: license(holderKey) });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/rss+xml; charset=utf-8");
    const xml = await response.text();
    expect(xml).toContain("<title>Tools &amp; &lt;Things&gt;</title>");
    const items = parseAppcast(xml);
    expect(items.map((item) => [item.version, item.shortVersionString, item.channel, item.critical])).toEqual(
      [
        ["1.2.0-beta.2", "1.2.0-beta.2", "beta", true],
        ["1.1.0", "1.1.0", null, false],
      ],
    );
    expect(items[1]?.description).toContain("<strong>faster</strong>");
    expect(items[1]?.pubDate).toMatch(/^\w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d \+0000$/);
    for (const [item, bytes] of [
      [items[0], MAC_BETA],
      [items[1], MAC_NEW],
    ] as const) {
      expect(item?.enclosure).toMatchObject({
        length: String(bytes.length),
        type: "application/octet-stream",
      });
      const file = readFileSync(await downloadTo(item?.enclosure.url as string, "sparkle.zip"));
      const signature = Buffer.from(item?.enclosure.edSignature as string, "base64");
      expect(verify(null, file, sparkleKeys.publicKey, signature)).toBe(true);
      expect(verify(null, TAURI_NEW, sparkleKeys.publicKey, signature)).toBe(false);
    }
  });

  test("no key → 401 JSON, not an appcast", async () => {
    const response = await fetch(`${updates()}/sparkle/appcast.xml`);
    expect(response.status).toBe(401);
    expect(response.headers.get("content-type")).toContain("application/json");
  });
});

describe("Squirrel.Mac", () => {
  test("an older client gets the zip, by Electron's arch names too; the newest gets 204", async () => {
    for (const arch of ["x64", "x86_64", "universal"]) {
      const response = await fetch(`${updates()}/squirrel/darwin/${arch}/1.0.0`, {
        headers: license(holderKey),
      });
      expect({ arch, status: response.status }).toEqual({ arch, status: 200 });
      expect(await readJson(response)).toEqual({
        url: fileUrl("1.1.0", "Tools-1.1.0-mac.zip"),
        name: "1.1.0",
        notes: NOTES,
        pub_date: expect.stringMatching(/Z$/),
      });
    }
    const beta = await fetch(`${updates()}/squirrel/darwin/arm64/1.1.0?channel=beta`, {
      headers: license(holderKey),
    });
    expect((await readJson(beta)).name).toBe("1.2.0-beta.2");
    const none = await fetch(`${updates()}/squirrel/darwin/arm64/1.1.0`, { headers: license(holderKey) });
    expect(none.status).toBe(204);
    const bad = await fetch(`${updates()}/squirrel/darwin/ppc/latest`, { headers: license(holderKey) });
    expect(bad.status).toBe(422);
    expect(Object.keys((await readJson(bad)).errors).sort()).toEqual(["arch", "current_version"]);
  });
});

describe("the signed upgrade check", () => {
  const upgrade = (query: string, headers: Record<string, string> = license(holderKey)) =>
    fetch(`${base}/api/v1/products/${product.id}/upgrade?${query}`, { headers });

  test("an upgrade, its artifacts narrowed to the platform, the nonce echoed, signed like validate", async () => {
    const jwks = await fetchJwks(base);
    const message = await readSigned(await upgrade("version=1.0.0&platform=darwin&arch=aarch64&nonce=n-1"));
    expect(message.status).toBe(200);
    expect((await verifyAnswer(message, jwks)).ok).toBe(true);
    const body = JSON.parse(new TextDecoder().decode(message.body));
    expect(body).toMatchObject({
      upgrade: true,
      current: "1.0.0",
      product_id: String(product.id),
      platform: "darwin",
      arch: "aarch64",
      channel: "stable",
      nonce: "n-1",
    });
    expect(body.version.version_number).toBe("1.1.0");
    expect(body.version.artifacts.map((a: { file_name: string }) => a.file_name)).toEqual([
      "Tools-1.1.0-mac.zip",
    ]);
    // A tampered body no longer verifies.
    const tampered = {
      ...message,
      body: new TextEncoder().encode(JSON.stringify({ ...body, upgrade: false })),
    };
    expect((await verifyAnswer(tampered, jwks)).ok).toBe(false);
  });

  test("up to date: upgrade false, version null; refusals are signed JSON too", async () => {
    const jwks = await fetchJwks(base);
    const current = await readSigned(await upgrade("version=1.1.0&platform=darwin"));
    expect(JSON.parse(new TextDecoder().decode(current.body))).toEqual({
      upgrade: false,
      current: "1.1.0",
      product_id: String(product.id),
      platform: "darwin",
      arch: "any",
      channel: "stable",
      nonce: null,
      version: null,
    });
    expect((await verifyAnswer(current, jwks)).ok).toBe(true);
    const bad = await readSigned(await upgrade("version=latest&platform=amiga&channel=x"));
    expect(bad.status).toBe(422);
    expect(Object.keys(JSON.parse(new TextDecoder().decode(bad.body)).errors).sort()).toEqual([
      "channel",
      "platform",
      "version",
    ]);
    expect((await verifyAnswer(bad, jwks)).ok).toBe(true);
    const anonymous = await readSigned(await upgrade("version=1.0.0", {}));
    expect(anonymous.status).toBe(401);
    expect((await verifyAnswer(anonymous, jwks)).ok).toBe(true);
  });

  test("a signed 'no upgrade' names what it answers for: another product, platform, arch or channel signs another body", async () => {
    const owner = await createUser(t.ctx, { role: "vendor" });
    const free = await createProduct(t.ctx, owner, { name: "Free Thing", free: true });
    const bodyOf = async (url: string) => {
      const message = await readSigned(await fetch(url, { headers: license(holderKey) }));
      expect(message.status).toBe(200);
      return JSON.parse(new TextDecoder().decode(message.body));
    };
    const asked = "version=9.0.0&platform=linux&arch=x86_64&channel=beta";
    const ours = await bodyOf(`${base}/api/v1/products/${product.id}/upgrade?${asked}`);
    const theirs = await bodyOf(`${base}/api/v1/products/${free.id}/upgrade?${asked}`);
    expect(ours).toMatchObject({ upgrade: false, product_id: String(product.id), platform: "linux" });
    expect(theirs).toMatchObject({ upgrade: false, product_id: String(free.id), platform: "linux" });
    expect(typeof theirs.product_id).toBe("string");
    for (const other of [
      "version=9.0.0&platform=windows&arch=x86_64&channel=beta",
      "version=9.0.0&platform=linux&arch=aarch64&channel=beta",
      "version=9.0.0&platform=linux&arch=x86_64&channel=stable",
    ]) {
      const body = await bodyOf(`${base}/api/v1/products/${product.id}/upgrade?${other}`);
      expect(body.upgrade).toBe(false);
      expect([body.platform, body.arch, body.channel]).not.toEqual([ours.platform, ours.arch, ours.channel]);
      expect(JSON.stringify(body)).not.toBe(JSON.stringify(ours));
    }
  });
});
