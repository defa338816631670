// What a real depot cannot be made to do: answers from a server in this test, signed by a key made
// here and pinned by the client, each wrong in exactly one way.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, beforeEach, describe, test } from "node:test";
import { Client, type ClientOptions, RefusedError, UnreachableError, UnverifiableError } from "depot-client";
import {
  type Answer,
  type Handler,
  jwksOf,
  license,
  machine,
  makeKey,
  type Request,
  serve,
  signed,
  type TestServer,
  validation,
} from "./helpers/signer.js";

const KEY = "ABCDE-FGHIJ-KLMNO-PQRST-UVWXY";
const key = await makeKey("pinned");
const stranger = await makeKey("stranger");
let handle: Handler = () => ({ status: 404, headers: {}, body: "" });
let server: TestServer;
let client: Client;
const clientFor = (options: Partial<ClientOptions> = {}) =>
  new Client({ server: server.url, productId: "1", jwks: jwksOf(key), retries: 0, ...options });

before(async () => {
  server = await serve((request) => handle(request));
  client = clientFor();
});
after(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
});

/** The error `promise` rejects with, which must be a `kind`. */
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

async function unverifiable(promise: Promise<unknown>, check: string, message: RegExp) {
  const error = await rejection(promise, UnverifiableError);
  assert.equal(error.check, check);
  assert.match(error.message, message);
}

const validAnswer = (request: Request, overrides = {}) => signed(key, validation(request, overrides));

describe("validate: a good answer, then each check broken alone", () => {
  test("a good answer is a Validation", async () => {
    handle = (request) => validAnswer(request);
    const result = await client.validate(KEY);
    assert.equal(result.valid, true);
    assert.equal(result.code, "VALID");
    assert.equal(result.license?.key, KEY);
    assert.deepEqual(result.ips, { count: 1, max: 5 });
    assert.ok(Math.abs(result.signedAt.getTime() - Date.now()) < 5000);
    // What was sent: the key, the product, a fresh 16-byte base64url nonce, the User-Agent.
    const [first] = server.requests;
    assert.equal(first?.method, "POST");
    assert.equal(first?.url.pathname, "/api/v1/licenses/validate");
    assert.equal(first?.json.key, KEY);
    assert.equal(first?.json.productId, "1");
    assert.match(String(first?.json.nonce), /^[A-Za-z0-9_-]{22}$/);
    assert.match(String(first?.headers["user-agent"]), /^depot-client-js\/\d+\.\d+\.\d+$/);
    await client.validate(KEY);
    assert.notEqual(server.requests[1]?.json.nonce, first?.json.nonce);
  });

  test("not valid is a result", async () => {
    handle = (request) =>
      signed(
        key,
        validation(request, { valid: false, code: "REVOKED", detail: "This license has been revoked." }),
      );
    const result = await client.validate(KEY);
    assert.equal(result.valid, false);
    assert.equal(result.code, "REVOKED");
  });

  test("unsigned", async () => {
    handle = (request) => ({
      status: 200,
      headers: { "content-type": "application/json" },
      body: JSON.stringify(validation(request)),
    });
    await unverifiable(client.validate(KEY), "signed", /^the answer is not signed$/);
  });

  test("a body that is not the one digested", async () => {
    handle = async (request) => {
      const answer = await validAnswer(request);
      return { ...answer, body: String(answer.body).replace('"maxIps":5', '"maxIps":500') };
    };
    await unverifiable(client.validate(KEY), "digest", /^the body does not match its Content-Digest$/);
  });

  test("an unknown kid", async () => {
    handle = (request) => signed(stranger, validation(request));
    await unverifiable(client.validate(KEY), "key", /^the key "stranger" is not pinned$/);
  });

  test("another key's signature under the pinned kid", async () => {
    handle = (request) => signed(stranger, validation(request), { keyid: "pinned" });
    await unverifiable(client.validate(KEY), "signature", /^the signature does not verify$/);
  });

  test("created outside the skew, either way", async () => {
    const now = Math.floor(Date.now() / 1000);
    handle = (request) => signed(key, validation(request), { created: now - 400 });
    await unverifiable(
      client.validate(KEY),
      "created",
      /^the signature was created 40\d s ago \(more than 300 s\)$/,
    );
    handle = (request) => signed(key, validation(request), { created: now + 400 });
    await unverifiable(client.validate(KEY), "created", /in the future/);
    // Within it, or within a wider one the app set: accepted.
    handle = (request) => signed(key, validation(request), { created: now - 200 });
    assert.equal((await client.validate(KEY)).valid, true);
    handle = (request) => signed(key, validation(request), { created: now - 400 });
    assert.equal((await clientFor({ maxClockSkew: 600 }).validate(KEY)).valid, true);
  });

  test("the clock setting is what now is", async () => {
    handle = (request) => signed(key, validation(request), { created: 1_000_000_000 });
    const past = clientFor({ clock: () => new Date(1_000_000_100 * 1000) });
    assert.equal((await past.validate(KEY)).signedAt.getTime(), 1_000_000_000_000);
  });

  test("another nonce (a replay)", async () => {
    handle = (request) => validAnswer(request, { nonce: "recorded-earlier" });
    await unverifiable(client.validate(KEY), "nonce", /^the answer does not echo our nonce/);
  });

  test("another license's key echoed", async () => {
    handle = (request) => validAnswer(request, { license: license("ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ") });
    await unverifiable(client.validate(KEY), "subject", /^the answer is about another license key$/);
    // The key as depot normalises it (upper case, trimmed) is the same key.
    handle = (request) => validAnswer(request, { license: license(KEY.toLowerCase()) });
    assert.equal((await client.validate(` ${KEY} `)).valid, true);
  });

  test("another product: a VALID about it is forged, a PRODUCT_MISMATCH is depot's answer", async () => {
    handle = (request) => validAnswer(request, { license: license(KEY, "2") });
    await unverifiable(client.validate(KEY), "subject", /^the answer is about another product$/);
    handle = (request) =>
      validAnswer(request, { valid: false, code: "PRODUCT_MISMATCH", license: license(KEY, "2") });
    assert.equal((await client.validate(KEY)).code, "PRODUCT_MISMATCH");
    // PRODUCT_MISMATCH about this very product says something depot never does.
    handle = (request) => validAnswer(request, { valid: false, code: "PRODUCT_MISMATCH" });
    await unverifiable(client.validate(KEY), "subject", /^the answer is about another product$/);
    // depot decides REVOKED and EXPIRED before it compares products: any product's, genuine.
    for (const code of ["REVOKED", "EXPIRED"]) {
      handle = (request) => validAnswer(request, { valid: false, code, license: license(KEY, "2") });
      assert.equal((await client.validate(KEY)).code, code);
    }
  });

  test("another machine, or none, when a fingerprint was sent", async () => {
    handle = (request) => validAnswer(request, { machine: machine("fp-other") });
    await unverifiable(client.validate(KEY, { fingerprint: "fp-1" }), "subject", /another machine/);
    handle = (request) => validAnswer(request);
    await unverifiable(client.validate(KEY, { fingerprint: "fp-1" }), "subject", /another machine/);
    handle = (request) => validAnswer(request, { machine: machine("fp-1") });
    assert.equal((await client.validate(KEY, { fingerprint: "fp-1" })).machine?.fingerprint, "fp-1");
  });

  test("a body that is not JSON, or not a validation", async () => {
    handle = () => signed(key, "<html>not depot</html>", { contentType: "text/html" });
    await unverifiable(client.validate(KEY), "body", /^the signed body is not JSON$/);
    handle = () => signed(key, "[1]");
    await unverifiable(client.validate(KEY), "body", /not a JSON object/);
    handle = (request) => signed(key, { nonce: request.json.nonce, hello: "world" });
    await unverifiable(client.validate(KEY), "body", /not a validation/);
  });

  test("a Signature-Input that is not depot's", async () => {
    const now = Math.floor(Date.now() / 1000);
    const inputs = [
      `("@status" "content-type");created=${now};keyid="pinned";alg="ed25519"`,
      `("@status" "content-type" "content-digest" "date");created=${now};keyid="pinned";alg="ed25519"`,
      `("@status" "content-type" "content-digest");created=${now};keyid="pinned";alg="ed25519";nonce="x"`,
      `("@status" "content-type" "content-digest");created=${now};keyid="pinned"`,
    ];
    for (const params of inputs) {
      handle = (request) => signed(key, validation(request), { params });
      await unverifiable(client.validate(KEY), "signature-input", /Signature-Input/);
    }
    handle = (request) =>
      signed(key, validation(request), {
        params: `("@status" "content-type" "content-digest");created=${now};keyid="pinned";alg="rsa-pss-sha512"`,
      });
    await unverifiable(client.validate(KEY), "signature-input", /alg is "rsa-pss-sha512"/);
    // Parameters in another order are the same signature.
    handle = (request) =>
      signed(key, validation(request), {
        params: `("@status" "content-type" "content-digest");alg="ed25519";keyid="pinned";created=${now}`,
      });
    assert.equal((await client.validate(KEY)).valid, true);
    // Another label beside depot's.
    handle = async (request) => {
      const answer = await validAnswer(request);
      const input = `${answer.headers["signature-input"]}, proxy=("@status");created=${now}`;
      return { ...answer, headers: { ...answer.headers, "signature-input": input } };
    };
    await unverifiable(client.validate(KEY), "signature-input", /Signature-Input/);
  });
});

describe("retries and timeouts", () => {
  test("503, then 200: retried", async () => {
    let calls = 0;
    handle = (request) => (++calls === 1 ? { status: 503, headers: {}, body: "busy" } : validAnswer(request));
    const result = await clientFor({ retries: 2 }).validate(KEY);
    assert.equal(result.valid, true);
    assert.equal(server.requests.length, 2);
    // One request, tried again: the same nonce (a new request, a new one: see the first test).
    assert.equal(server.requests[0]?.json.nonce, server.requests[1]?.json.nonce);
  });

  test("503 through the retries: unreachable", async () => {
    handle = () => ({ status: 503, headers: {}, body: "busy" });
    const error = await rejection(clientFor({ retries: 1 }).validate(KEY), UnreachableError);
    assert.match(error.message, /HTTP 503 \(2 attempts\)$/);
    assert.equal(server.requests.length, 2);
  });

  test("429 with Retry-After within maxRetryWait: waited for, then retried", async () => {
    let calls = 0;
    handle = (request) =>
      ++calls === 1 ? { status: 429, headers: { "retry-after": "1" }, body: "" } : validAnswer(request);
    const started = Date.now();
    assert.equal((await clientFor({ retries: 1 }).validate(KEY)).valid, true);
    assert.ok(Date.now() - started >= 950, `waited ${Date.now() - started} ms`);
  });

  test("429 with a Retry-After beyond maxRetryWait: depot's refusal, with retryAfter", async () => {
    handle = (request) =>
      signed(
        key,
        { code: "TOO_MANY_ACTIVATIONS", message: "Too many activations today.", nonce: request.json.nonce },
        { status: 429, headers: { "retry-after": "3600" } },
      );
    const error = await rejection(clientFor({ retries: 2 }).activate(KEY, "fp-1"), RefusedError);
    assert.equal(error.code, "TOO_MANY_ACTIVATIONS");
    assert.equal(error.status, 429);
    assert.equal(error.retryAfter, 3600);
    assert.equal(server.requests.length, 1);
  });

  test("no answer in time: unreachable, after the retries", async () => {
    handle = () => "hang";
    const started = Date.now();
    const error = await rejection(clientFor({ timeout: 0.3, retries: 1 }).validate(KEY), UnreachableError);
    assert.match(error.message, /no answer within 0\.3 s \(2 attempts\)$/);
    assert.equal(server.requests.length, 2);
    assert.ok(Date.now() - started < 5000);
  });

  test("nobody listening: unreachable", async () => {
    const closed = await serve(() => "hang");
    await closed.close();
    const error = await rejection(
      new Client({ server: closed.url, productId: "1", jwks: jwksOf(key), retries: 0 }).validate(KEY),
      UnreachableError,
    );
    assert.match(error.message, /connection refused/);
  });
});

describe("refusals", () => {
  test("a signed coded refusal: its code, message and status", async () => {
    handle = (request) =>
      signed(
        key,
        {
          code: "TOO_MANY_MACHINES",
          message: "This license is already active on its maximum of 1 machine.",
          nonce: request.json.nonce,
        },
        { status: 409 },
      );
    const error = await rejection(client.activate(KEY, "fp-2"), RefusedError);
    assert.equal(error.code, "TOO_MANY_MACHINES");
    assert.equal(error.status, 409);
    assert.match(error.message, /maximum of 1 machine/);
  });

  test("a refusal without a code: by its status, with the 422's field errors", async () => {
    handle = () =>
      signed(
        key,
        { message: "The key field is invalid.", errors: { key: ["The key is too long."] } },
        { status: 422 },
      );
    const error = await rejection(client.validate(KEY), RefusedError);
    assert.equal(error.code, "INVALID");
    assert.deepEqual(error.errors, { key: ["The key is too long."] });
    handle = () => signed(key, { message: "Machine not found." }, { status: 404 });
    assert.equal((await rejection(client.heartbeat(KEY, "m-1"), RefusedError)).code, "NOT_FOUND");
  });

  test("a refusal is verified like any answer: unsigned, or with another nonce, it is not depot's", async () => {
    handle = () => ({ status: 409, headers: {}, body: '{"code":"TOO_MANY_MACHINES","message":"no"}' });
    await unverifiable(client.activate(KEY, "fp-2"), "signed", /not signed/);
    handle = () => signed(key, { code: "REVOKED", message: "Revoked.", nonce: "old" }, { status: 403 });
    await unverifiable(client.activate(KEY, "fp-2"), "nonce", /nonce/);
  });
});

describe("machines", () => {
  const activation = (request: Request, status = 201, overrides = {}) =>
    signed(
      key,
      {
        machine: machine(String(request.json.fingerprint)),
        license: { ...license(KEY), maxMachines: 3, floating: true, heartbeatSeconds: 60 },
        nonce: request.json.nonce,
        ...overrides,
      },
      { status },
    );

  test("activate: 201 created, 200 already active; only name, platform and hostname are sent", async () => {
    handle = (request) => activation(request);
    const details = { name: "Ada's laptop", hostname: "ada", extra: "dropped" } as { name: string };
    const activated = await client.activate(KEY, "fp-1", details);
    assert.equal(activated.created, true);
    assert.equal(activated.machine.fingerprint, "fp-1");
    assert.deepEqual(Object.keys(server.requests[0]?.json ?? {}).sort(), [
      "fingerprint",
      "hostname",
      "key",
      "name",
      "nonce",
    ]);
    handle = (request) => activation(request, 200);
    assert.equal((await client.activate(KEY, "fp-1")).created, false);
  });

  test("activate: another machine, another key, another product", async () => {
    handle = (request) => activation(request, 201, { machine: machine("fp-other") });
    await unverifiable(client.activate(KEY, "fp-1"), "subject", /another machine/);
    handle = (request) => activation(request, 201, { license: license("ZZZZZ-ZZZZZ") });
    await unverifiable(client.activate(KEY, "fp-1"), "subject", /another license key/);
    // The key is the one sent, but of another product: depot's genuine answer, so a refusal.
    handle = (request) => activation(request, 201, { license: license(KEY, "2") });
    assert.equal((await rejection(client.activate(KEY, "fp-1"), RefusedError)).code, "PRODUCT_MISMATCH");
  });

  test("heartbeat: ?nonce= sent and echoed, the machine asked about, License header", async () => {
    const id = "8a1c1d7e-0000-4000-8000-000000000002";
    handle = (request) =>
      signed(key, { machine: machine("fp-1", id), nonce: request.url.searchParams.get("nonce") });
    const beaten = await client.heartbeat(KEY, id);
    assert.equal(beaten.id, id);
    const [sent] = server.requests;
    assert.equal(sent?.url.pathname, `/api/v1/machines/${id}/heartbeat`);
    assert.equal(sent?.headers.authorization, `License ${KEY}`);
    handle = () => signed(key, { machine: machine("fp-1", id) });
    await unverifiable(client.heartbeat(KEY, id), "nonce", /nonce/);
    handle = (request) =>
      signed(key, { machine: machine("fp-1", "another-id"), nonce: request.url.searchParams.get("nonce") });
    await unverifiable(client.heartbeat(KEY, id), "subject", /another machine/);
  });

  test("startHeartbeat beats on its interval and stops on a refusal (HEARTBEAT_DEAD)", async () => {
    let beats = 0;
    handle = (request) =>
      ++beats < 3
        ? signed(key, { machine: machine("fp-1", "m-1"), nonce: request.url.searchParams.get("nonce") })
        : signed(key, { code: "HEARTBEAT_DEAD", message: "Activate it again." }, { status: 410 });
    const errors: unknown[] = [];
    const running = client.startHeartbeat(KEY, "m-1", {
      intervalSeconds: 0.05,
      onError: (e) => errors.push(e),
    });
    for (let i = 0; i < 100 && !running.stopped; i++) await new Promise((done) => setTimeout(done, 20));
    assert.equal(running.stopped, true);
    assert.equal(beats, 3);
    assert.ok(errors[0] instanceof RefusedError && errors[0].code === "HEARTBEAT_DEAD");
  });

  test("startHeartbeat beats at once, then every 60 s by default", async () => {
    handle = (request) =>
      signed(key, { machine: machine("fp-1", "m-1"), nonce: request.url.searchParams.get("nonce") });
    const running = client.startHeartbeat(KEY, "m-1");
    try {
      for (let i = 0; i < 100 && server.requests.length === 0; i++) {
        await new Promise((done) => setTimeout(done, 20));
      }
      assert.equal(server.requests.length, 1, "the first heartbeat goes at once");
      await new Promise((done) => setTimeout(done, 200));
      assert.equal(server.requests.length, 1, "the next one a minute later");
    } finally {
      running.stop();
    }
  });

  test("startHeartbeat keeps going through an outage; stop() stops it", async () => {
    handle = () => ({ status: 503, headers: {}, body: "" });
    const errors: unknown[] = [];
    const running = client.startHeartbeat(KEY, "m-1", {
      intervalSeconds: 0.03,
      onError: (e) => errors.push(e),
    });
    await new Promise((done) => setTimeout(done, 250));
    running.stop();
    const count = server.requests.length;
    assert.ok(count >= 2, `${count} heartbeats`);
    assert.ok(errors.every((e) => e instanceof UnreachableError));
    await new Promise((done) => setTimeout(done, 100));
    assert.equal(server.requests.length, count);
  });

  test("deactivate: the unsigned 204 is enough; a refusal is verified", async () => {
    handle = () => ({ status: 204, headers: {}, body: "" });
    await client.deactivate(KEY, "m-1");
    assert.equal(server.requests[0]?.method, "DELETE");
    // depot takes no nonce on this route (a 422 "The nonce field is prohibited.").
    assert.equal(server.requests[0]?.url.search, "");
    handle = () => signed(key, { message: "Machine not found." }, { status: 404 });
    const gone = await rejection(client.deactivate(KEY, "m-1"), RefusedError);
    assert.deepEqual([gone.code, gone.fileExpiresAt], ["NOT_FOUND", undefined]);
  });

  test("deactivate: a machine whose license file is valid keeps its seat until the file expires", async () => {
    handle = () =>
      signed(
        key,
        { code: "MACHINE_FILE_VALID", message: "Held.", fileExpiresAt: "2026-12-04T23:12:21.000Z" },
        { status: 409 },
      );
    const held = await rejection(client.deactivate(KEY, "m-1"), RefusedError);
    assert.deepEqual([held.code, held.status], ["MACHINE_FILE_VALID", 409]);
    assert.equal(held.fileExpiresAt?.toISOString(), "2026-12-04T23:12:21.000Z");
  });
});

describe("checkForUpdate", () => {
  const upgradeAnswer = (request: Request, overrides = {}) => {
    const q = request.url.searchParams;
    return signed(key, {
      upgrade: false,
      current: q.get("version"),
      product_id: "1",
      platform: q.get("platform"),
      arch: q.get("arch"),
      channel: q.get("channel"),
      nonce: q.get("nonce"),
      version: null,
      ...overrides,
    });
  };

  test("asks for the product, version, platform, arch and channel; any/any/stable by default", async () => {
    handle = (request) => upgradeAnswer(request);
    const upgrade = await client.checkForUpdate(KEY, "1.0.0", { stagingId: "install-7" });
    assert.deepEqual([upgrade.upgrade, upgrade.version, upgrade.artifacts], [false, null, []]);
    const [sent] = server.requests;
    assert.equal(sent?.url.pathname, "/api/v1/products/1/upgrade");
    assert.equal(sent?.url.searchParams.get("platform"), "any");
    assert.equal(sent?.url.searchParams.get("channel"), "stable");
    assert.equal(sent?.headers["x-user-staging-id"], "install-7");
    assert.equal(sent?.headers.authorization, `License ${KEY}`);
  });

  test("an answer about another product, platform, arch, channel or version", async () => {
    const options = { platform: "linux", arch: "x86_64" };
    for (const [field, value] of [
      ["product_id", "2"],
      ["platform", "windows"],
      ["arch", "aarch64"],
      ["channel", "beta"],
      ["current", "0.9.0"],
    ]) {
      handle = (request) => upgradeAnswer(request, { [field as string]: value });
      await unverifiable(
        client.checkForUpdate(KEY, "1.0.0", options),
        "subject",
        /^the answer is about another /,
      );
    }
  });
});

describe("status() when nothing was kept, and fetchJwks", () => {
  test("an unverifiable answer and nothing kept: not valid, UNVERIFIABLE, with the error", async () => {
    handle = (request) => ({ status: 200, headers: {}, body: JSON.stringify(validation(request)) });
    const status = await clientFor().status(KEY);
    assert.deepEqual(
      [status.valid, status.code, status.source, status.checkedAt],
      [false, "UNVERIFIABLE", "none", null],
    );
    assert.ok(status.error instanceof UnverifiableError);
  });

  test("a kept answer older than offlineGrace is not used; a younger one is", async () => {
    const state = mkdtempSync(join(tmpdir(), "depot-client-state-"));
    try {
      handle = (request) => validAnswer(request);
      let now = Date.now();
      const at = () => new Date(now);
      const online = await clientFor({ stateDir: state, clock: at }).status(KEY);
      assert.equal(online.source, "online");
      // The kept answer is the signed bytes: changed on disk, it no longer verifies.
      handle = () => "hang";
      const offline = clientFor({ stateDir: state, clock: at, timeout: 0.2 });
      now += 3600_000;
      assert.equal((await offline.status(KEY)).source, "cache");
      const [file] = (await import("node:fs")).readdirSync(state).filter((f) => f.endsWith(".answer.json"));
      const path = join(state, file as string);
      const keptText = readFileSync(path, "utf8");
      const kept = JSON.parse(keptText);
      kept.body = btoa(atob(kept.body).replace('"maxIps":5', '"maxIps":9'));
      writeFileSync(path, JSON.stringify(kept));
      assert.equal((await offline.status(KEY)).source, "none");
      writeFileSync(path, keptText);
      now += 8 * 86_400_000;
      const stale = await offline.status(KEY);
      assert.deepEqual([stale.valid, stale.code, stale.source], [false, "UNREACHABLE", "none"]);
      // Past the grace it still says when depot last answered.
      assert.equal(stale.checkedAt?.getTime(), online.checkedAt?.getTime());
    } finally {
      rmSync(state, { recursive: true, force: true });
    }
  });

  test("fetchJwks: the keys come from the server, fetched again for an unknown keyid", async () => {
    let served = [key];
    handle = (request) =>
      request.url.pathname === "/.well-known/jwks.json"
        ? ({
            status: 200,
            headers: { "content-type": "application/json" },
            body: jwksOf(...served),
          } as Answer)
        : signed(stranger, validation(request));
    const unpinned = new Client({ server: server.url, productId: "1", fetchJwks: true, retries: 0 });
    assert.deepEqual(
      (await unpinned.keys()).map((k) => k.kid),
      ["pinned"],
    );
    // Pinned beats fetched: with jwks given, nothing is fetched.
    const both = clientFor({ fetchJwks: true });
    await unverifiable(both.validate(KEY), "key", /"stranger" is not pinned/);
    served = [key, stranger];
    await unverifiable(unpinned.validate(KEY), "key", /no published key has keyid "stranger"/);
    const fresh = new Client({ server: server.url, productId: "1", fetchJwks: true, retries: 0 });
    assert.equal((await fresh.validate(KEY)).valid, true);
  });
});

describe("download, from servers that misbehave", () => {
  const bytes = new TextEncoder().encode("0123456789".repeat(1000));
  const artifactAt = async (url: string, overrides = {}) => {
    const { createHash } = await import("node:crypto");
    return {
      file_name: "app-1.1.0.tar.gz",
      file_size: bytes.length,
      sha256: createHash("sha256").update(bytes).digest("hex"),
      sha512: createHash("sha512").update(bytes).digest("base64"),
      download_url: url,
      ...overrides,
    };
  };
  let directory: string;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), "depot-client-download-"));
  });

  test("a server that ignores Range: the whole file again, from the start", async () => {
    writeFileSync(join(directory, "app-1.1.0.tar.gz.part"), bytes.subarray(0, 100));
    handle = () => ({ status: 200, headers: {}, body: bytes });
    const path = await client.download(KEY, await artifactAt(`${server.url}/file`), directory);
    assert.deepEqual(new Uint8Array(readFileSync(path)), bytes);
    assert.equal(server.requests[0]?.headers.range, "bytes=100-");
    assert.equal(server.requests[0]?.headers["x-license-key"], KEY);
    rmSync(directory, { recursive: true, force: true });
  });

  test("more bytes than file_size: stopped, the .part deleted", async () => {
    handle = () => ({ status: 200, headers: {}, body: new Uint8Array([...bytes, 1, 2, 3]) });
    await unverifiable(
      client.download(KEY, await artifactAt(`${server.url}/file`), directory),
      "download",
      /more than the artifact's 10000 bytes/,
    );
    assert.deepEqual((await import("node:fs")).readdirSync(directory), []);
    rmSync(directory, { recursive: true, force: true });
  });

  test("a connection cut short: resumed with Range on the next attempt", async () => {
    const large = crypto.getRandomValues(new Uint8Array(65536)).map((b, i) => b ^ i);
    const file = new Uint8Array(4 << 20).map((_, i) => large[i % large.length] as number);
    let calls = 0;
    handle = (request): Answer => {
      calls++;
      const from = Number(/bytes=(\d+)-/.exec(String(request.headers.range))?.[1] ?? 0);
      if (calls === 1) {
        const headers = { "content-length": String(file.length) };
        return { status: 200, headers, body: file.subarray(0, 3 << 20), cut: true };
      }
      if (from === 0) return { status: 200, headers: {}, body: file };
      const range = `bytes ${from}-${file.length - 1}/${file.length}`;
      return { status: 206, headers: { "content-range": range }, body: file.subarray(from) };
    };
    const { createHash } = await import("node:crypto");
    const artifact = await artifactAt(`${server.url}/file`, {
      file_size: file.length,
      sha256: createHash("sha256").update(file).digest("hex"),
      sha512: createHash("sha512").update(file).digest("base64"),
    });
    const path = await clientFor({ retries: 2 }).download(KEY, artifact, directory);
    assert.deepEqual(new Uint8Array(readFileSync(path)), file);
    assert.equal(server.requests.length, 2);
    assert.match(String(server.requests[1]?.headers.range), /^bytes=[1-9]\d*-$/);
    rmSync(directory, { recursive: true, force: true });
  });

  test("a redirect to another host gets the range but not the license key", async () => {
    const bucket = await serve(() => ({ status: 200, headers: {}, body: bytes }));
    try {
      handle = () => ({ status: 302, headers: { location: `${bucket.url}/presigned?sig=1` }, body: "" });
      const path = await client.download(KEY, await artifactAt(`${server.url}/file`), directory);
      assert.deepEqual(new Uint8Array(readFileSync(path)), bytes);
      assert.equal(server.requests[0]?.headers["x-license-key"], KEY);
      assert.equal(bucket.requests[0]?.headers["x-license-key"], undefined);
      assert.equal(bucket.requests[0]?.url.pathname, "/presigned");
    } finally {
      await bucket.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });

  test("a refused download is a RefusedError, and keeps nothing", async () => {
    handle = () => ({
      status: 403,
      headers: {},
      body: '{"message":"This license does not hold this product."}',
    });
    const error = await rejection(
      client.download(KEY, await artifactAt(`${server.url}/file`), directory),
      RefusedError,
    );
    assert.equal(error.code, "FORBIDDEN");
    assert.match(error.message, /does not hold/);
    rmSync(directory, { recursive: true, force: true });
  });
});
