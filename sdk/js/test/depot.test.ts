// Against a real depot: the seeded one sdk/conformance/start-depot.ts starts (test.sh passes its
// details in DEPOT_FIXTURE). Licenses with machines are made here, one per test, through the
// license API, so that the Node and the Bun run share the server without sharing seats.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  type Artifact,
  Client,
  type ClientOptions,
  LicenseFileError,
  RefusedError,
  UnverifiableError,
} from "depot-client";

interface Fixture {
  server: string;
  jwks: string;
  productId: string;
  key: string;
  machineKey: string;
  otherKey: string;
  apiKey: string;
  token: string;
}

if (!process.env.DEPOT_FIXTURE) {
  throw new Error(
    "DEPOT_FIXTURE is not set: run sdk/js/test.sh, which starts a seeded depot for these tests",
  );
}
const fixture = JSON.parse(readFileSync(process.env.DEPOT_FIXTURE, "utf8")) as Fixture;
const runtime = typeof (globalThis as { Bun?: unknown }).Bun === "undefined" ? "node" : "bun";
/** A fingerprint of this run's own: the Node and the Bun run use one server. */
const fingerprint = (name: string) => `${runtime}-${name}-${crypto.randomUUID().slice(0, 8)}`;
const jwks = readFileSync(fixture.jwks, "utf8");
const clientWith = (options: Partial<ClientOptions> = {}) =>
  new Client({ server: fixture.server, productId: fixture.productId, jwks, ...options });
const client = clientWith();
const scratch = mkdtempSync(join(tmpdir(), `depot-client-${runtime}-`));
let ownerId: string;

before(async () => {
  ownerId = String((await client.validate(fixture.key)).license?.userId);
});
after(() => rmSync(scratch, { recursive: true, force: true }));

/** A new license of the product, through the license API (x-api-key). */
async function newLicense(settings: Record<string, unknown>): Promise<{ id: string; key: string }> {
  const response = await fetch(`${fixture.server}/api/v1/licenses`, {
    method: "POST",
    headers: { "x-api-key": fixture.apiKey, "content-type": "application/json" },
    body: JSON.stringify({
      ownerId,
      creatorId: ownerId,
      productId: fixture.productId,
      maxIps: 100,
      ...settings,
    }),
  });
  assert.equal(response.status, 201, await response.clone().text());
  return (await response.json()) as { id: string; key: string };
}

async function rejection<T extends Error>(
  promise: Promise<unknown>,
  kind: new (...args: never[]) => T,
): Promise<T> {
  const error = await promise.then(
    (value) => assert.fail(`resolved with ${JSON.stringify(value)}`),
    (e: unknown) => e,
  );
  assert.ok(error instanceof kind, `expected a ${kind.name}, got ${String(error)}`);
  return error;
}

describe("validate", () => {
  test("a valid key", async () => {
    const result = await client.validate(fixture.key);
    assert.deepEqual([result.valid, result.code], [true, "VALID"]);
    assert.equal(result.license?.key, fixture.key);
    assert.equal(result.license?.productId, fixture.productId);
    assert.equal(typeof result.ips?.count, "number");
    assert.ok(Math.abs(result.signedAt.getTime() - Date.now()) < 60_000);
  });

  test("NOT_FOUND, PRODUCT_MISMATCH and FINGERPRINT_REQUIRED are results", async () => {
    const missing = await client.validate("NOPE0-NOPE0-NOPE0-NOPE0-NOPE0");
    assert.deepEqual([missing.valid, missing.code, missing.license], [false, "NOT_FOUND", null]);
    const other = await client.validate(fixture.otherKey);
    assert.deepEqual([other.valid, other.code], [false, "PRODUCT_MISMATCH"]);
    const machines = await client.validate(fixture.machineKey);
    assert.deepEqual([machines.valid, machines.code], [false, "FINGERPRINT_REQUIRED"]);
  });

  test("a key depot refuses to look at (422): a verified RefusedError", async () => {
    const error = await rejection(client.validate("K".repeat(201)), RefusedError);
    assert.deepEqual([error.code, error.status], ["INVALID", 422]);
  });
});

describe("machines", () => {
  test("activate (201, then 200), validate with the fingerprint, deactivate", async () => {
    const { key } = await newLicense({ maxMachines: 2, heartbeatSeconds: 600 });
    const fp = fingerprint("laptop");
    const first = await client.activate(key, fp, {
      name: "Ada's laptop",
      platform: "linux-x64",
      hostname: "ada",
    });
    assert.equal(first.created, true);
    assert.deepEqual(
      [first.machine.fingerprint, first.machine.name, first.machine.alive],
      [fp, "Ada's laptop", true],
    );
    const again = await client.activate(key, fp);
    assert.deepEqual([again.created, again.machine.id], [false, first.machine.id]);
    const validated = await client.validate(key, { fingerprint: fp });
    assert.deepEqual(
      [validated.valid, validated.machine?.id, validated.machines?.count],
      [true, first.machine.id, 1],
    );
    await client.deactivate(key, first.machine.id);
    assert.equal((await client.validate(key, { fingerprint: fp })).code, "NOT_ACTIVATED");
    const gone = await rejection(client.deactivate(key, first.machine.id), RefusedError);
    assert.deepEqual([gone.code, gone.status], ["NOT_FOUND", 404]);
  });

  test("heartbeat (needs depot's ?nonce= echo on heartbeats)", async () => {
    const { key } = await newLicense({ maxMachines: 1, heartbeatSeconds: 600 });
    const { machine } = await client.activate(key, fingerprint("beating"));
    const beaten = await client.heartbeat(key, machine.id);
    assert.deepEqual([beaten.id, beaten.alive], [machine.id, true]);
  });

  test("a second machine on a license of one: TOO_MANY_MACHINES", async () => {
    const { key } = await newLicense({ maxMachines: 1 });
    await client.activate(key, fingerprint("first"));
    const error = await rejection(client.activate(key, fingerprint("second")), RefusedError);
    assert.deepEqual([error.code, error.status], ["TOO_MANY_MACHINES", 409]);
  });

  test("another product's key activates on its own license: PRODUCT_MISMATCH", async () => {
    const error = await rejection(client.activate(fixture.otherKey, fingerprint("stray")), RefusedError);
    assert.equal(error.code, "PRODUCT_MISMATCH");
  });
});

describe("license files", () => {
  test("checkout, then verified offline: good, tampered, expired, within the grace", async () => {
    const checkout = await client.checkout(fixture.key, { ttl: 3600 });
    assert.equal(checkout.valid, true);
    const text = checkout.licenseFile as string;
    assert.match(text, /^-----BEGIN DEPOT LICENSE FILE-----\n/);
    const file = await client.verifyLicenseFile(text, { key: fixture.key });
    assert.deepEqual([file.key, file.productId, file.fingerprint], [fixture.key, fixture.productId, null]);
    assert.equal(file.expiresAt.getTime(), checkout.licenseFileExpiresAt?.getTime());

    const [header, payload, signature] = text
      .replace(/-----[A-Z ]+-----/g, "")
      .replace(/\s+/g, "")
      .split(".");
    const i = (payload as string).length >> 1;
    const changed = `${payload?.slice(0, i)}${payload?.[i] === "A" ? "B" : "A"}${payload?.slice(i + 1)}`;
    const tampered = await rejection(
      client.verifyLicenseFile(`${header}.${changed}.${signature}`),
      LicenseFileError,
    );
    assert.deepEqual([tampered.check, tampered.message], ["signature", "signature verification failed"]);

    const afterExpiry = new Date(file.expiresAt.getTime() + 60_000);
    const expired = await rejection(client.verifyLicenseFile(text, { now: afterExpiry }), LicenseFileError);
    assert.equal(expired.check, "expired");
    assert.equal(
      (await client.verifyLicenseFile(text, { now: afterExpiry, graceSeconds: 120 })).key,
      fixture.key,
    );
  });

  test("a machine-bound file: refused on another machine; it holds the seat until it expires", async () => {
    const { key } = await newLicense({ maxMachines: 1 });
    const fp = fingerprint("bound");
    const { machine } = await client.activate(key, fp);
    const checkout = await client.checkout(key, { fingerprint: fp });
    const held = await rejection(client.deactivate(key, machine.id), RefusedError);
    assert.deepEqual([held.code, held.status], ["MACHINE_FILE_VALID", 409]);
    assert.equal(held.fileExpiresAt?.getTime(), checkout.licenseFileExpiresAt?.getTime());
    const text = checkout.licenseFile as string;
    assert.equal((await client.verifyLicenseFile(text, { fingerprint: fp })).fingerprint, fp);
    const elsewhere = await rejection(
      client.verifyLicenseFile(text, { fingerprint: "another" }),
      LicenseFileError,
    );
    assert.deepEqual(
      [elsewhere.check, elsewhere.message],
      ["fingerprint", "the file is bound to another machine"],
    );
  });

  test("offline activation: the request, exchanged by the owner, gives a file that verifies on its machine", async () => {
    const { id, key } = await newLicense({ maxMachines: 1 });
    const fp = fingerprint("air-gapped");
    const request = client.offlineActivationRequest(key, fp, { name: "vault" });
    const response = await fetch(`${fixture.server}/api/licenses/${id}/machines/offline`, {
      method: "POST",
      headers: { authorization: `Bearer ${fixture.token}`, "content-type": "application/json" },
      body: JSON.stringify({ request }),
    });
    assert.equal(response.status, 201, await response.clone().text());
    const { data } = (await response.json()) as { data: { license_file: string; machine: { name: string } } };
    assert.equal(data.machine.name, "vault");
    const file = await client.verifyLicenseFile(data.license_file, { key, fingerprint: fp });
    assert.equal(file.fingerprint, fp);
    const copied = await rejection(
      client.verifyLicenseFile(data.license_file, { fingerprint: "other" }),
      LicenseFileError,
    );
    assert.equal(copied.check, "fingerprint");
  });
});

describe("updates", () => {
  let artifact: Artifact;

  test("1.0.0 on linux x86_64: 1.1.0 with its artifact; 1.1.0: nothing newer", async () => {
    const upgrade = await client.checkForUpdate(fixture.key, "1.0.0", { platform: "linux", arch: "x86_64" });
    assert.deepEqual(
      [upgrade.upgrade, upgrade.version, upgrade.release?.version_number],
      [true, "1.1.0", "1.1.0"],
    );
    assert.deepEqual(
      upgrade.artifacts.map((a) => a.file_name),
      ["desk-clock-1.1.0-linux-x86_64.tar.gz"],
    );
    artifact = upgrade.artifacts[0] as Artifact;
    const none = await client.checkForUpdate(fixture.key, "1.1.0", { platform: "linux", arch: "x86_64" });
    assert.deepEqual([none.upgrade, none.version, none.release, none.artifacts], [false, null, null, []]);
  });

  test("another product's key may not ask: FORBIDDEN", async () => {
    const error = await rejection(client.checkForUpdate(fixture.otherKey, "1.0.0"), RefusedError);
    assert.deepEqual([error.code, error.status], ["FORBIDDEN", 403]);
  });

  const expected = () => new TextEncoder().encode(`${artifact.file_name} bytes\n`);

  test("download: the artifact, verified, renamed from its .part", async () => {
    const directory = join(scratch, "fresh");
    const progress: number[] = [];
    const path = await client.download(fixture.key, artifact, directory, {
      onProgress: (n) => progress.push(n),
    });
    assert.equal(path, join(directory, artifact.file_name));
    assert.deepEqual(new Uint8Array(readFileSync(path)), expected());
    assert.equal(progress.at(-1), artifact.file_size);
    assert.deepEqual(readdirSync(directory), [artifact.file_name]);
  });

  test("download: resumed from a .part (its bytes kept, the rest asked with Range)", async () => {
    const directory = join(scratch, "resumed");
    const part = join(directory, `${artifact.file_name}.part`);
    (await import("node:fs")).mkdirSync(directory, { recursive: true });
    writeFileSync(part, expected().subarray(0, 10));
    const path = await client.download(fixture.key, artifact, directory);
    assert.deepEqual(new Uint8Array(readFileSync(path)), expected());
    // Proof that the .part's bytes were kept, not fetched again: wrong ones make a wrong file.
    rmSync(path);
    writeFileSync(part, new Uint8Array(10).fill(0x21));
    const error = await rejection(client.download(fixture.key, artifact, directory), UnverifiableError);
    assert.equal(error.check, "download");
    assert.equal(existsSync(part), false);
  });

  test("download: a wrong hash is refused and the .part deleted", async () => {
    const directory = join(scratch, "wrong-hash");
    const wrong = { ...artifact, sha256: "0".repeat(64), sha512: null };
    const error = await rejection(client.download(fixture.key, wrong, directory), UnverifiableError);
    assert.match(error.message, /sha256 is [0-9a-f]{64}, the artifact says 0{64}: deleted /);
    assert.deepEqual(readdirSync(directory), []);
  });

  test("download: a hostile file_name is refused before a byte is written", async () => {
    const directory = join(scratch, "hostile");
    for (const name of [
      "../escaped.tar.gz",
      "sub/dir.tar.gz",
      "..\\win.exe",
      ".bashrc",
      "nul\u0000.exe",
      "C:evil",
      "app..tar.gz",
      "del\u007f.exe",
    ]) {
      const error = await rejection(
        client.download(fixture.key, { ...artifact, file_name: name }, directory),
        UnverifiableError,
      );
      assert.match(error.message, /^refusing the artifact's file_name /);
    }
    assert.equal(existsSync(directory), false);
    assert.equal(existsSync(join(dirname(directory), "escaped.tar.gz")), false);
  });
});

describe("status()", () => {
  test("online, then from the cache, then the license file, then none", async () => {
    const stateDir = join(scratch, "state");
    let now = Date.now();
    const clock = () => new Date(now);
    const online = await clientWith({ stateDir, clock }).status(fixture.key);
    assert.deepEqual([online.valid, online.code, online.source], [true, "VALID", "online"]);
    await clientWith({ stateDir, clock }).checkout(fixture.key);

    // depot unreachable: another process (a new client), the same stateDir.
    const down = clientWith({
      stateDir,
      clock,
      retries: 0,
      fetch: () => Promise.reject(new TypeError("fetch failed")),
    });
    now += 3 * 86_400_000;
    const cached = await down.status(fixture.key);
    assert.deepEqual([cached.valid, cached.code, cached.source], [true, "VALID", "cache"]);
    assert.equal(cached.checkedAt?.getTime(), cached.validation?.signedAt.getTime());
    assert.match(String(cached.error?.message), /fetch failed/);
    // Nobody listening at all: the same.
    const closed = new Client({
      server: "http://127.0.0.1:9",
      productId: fixture.productId,
      jwks,
      stateDir,
      clock,
      retries: 0,
    });
    assert.equal((await closed.status(fixture.key)).source, "cache");

    now += 5 * 86_400_000; // 8 days: past offlineGrace, within the file's 30
    const filed = await down.status(fixture.key);
    assert.deepEqual([filed.valid, filed.code, filed.source], [true, "VALID", "licenseFile"]);
    assert.equal(filed.licenseFile?.key, fixture.key);

    now += 30 * 86_400_000;
    const none = await down.status(fixture.key);
    // Nothing left to go on, but it says when depot last answered.
    assert.deepEqual(
      [none.valid, none.code, none.source, none.checkedAt?.getTime()],
      [false, "UNREACHABLE", "none", online.checkedAt?.getTime()],
    );
  });
});
