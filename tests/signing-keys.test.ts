import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { and, eq, isNotNull, isNull, sql } from "drizzle-orm";
import { calculateJwkThumbprint } from "jose";
import type { Database } from "../src/db/client.ts";
import { signingKeys } from "../src/db/schema/index.ts";
import { SigningKeyring } from "../src/features/signing/keyring.ts";
import { dropExpiredKeys, prepareNextKey, rotateSigningKey } from "../src/features/signing/keys.ts";
import { dropExpiredKeysEvery } from "../src/features/signing/sweep.ts";
import { createLogger } from "../src/log.ts";
import { recordingLogger, startTestApp, type TestApp } from "./helpers/app.ts";
import { depot, startServer } from "./helpers/cli.ts";
import { freshDatabase, onPostgres, type TestDatabase } from "./helpers/db.ts";
import {
  bodyJson,
  fetchJwks,
  readSigned,
  type SignedMessage,
  verifyAnswer,
} from "./helpers/verify-signature.ts";

/**
 * Issue 12, the keys behind the signatures: rotation (in process, by another instance, and by
 * `depot keys:rotate` in another process on PostgreSQL), the grace period a retired key stays
 * published for, several instances on one database signing alike, and the `keys:*` commands.
 * Rotations are made with depot's own service or CLI; every signature is checked with the
 * independent verifier in tests/helpers/verify-signature.ts.
 */

const APP_KEY = "signing-keys-test-app-key-0123456789abcdef";
const GRACE_DAYS = 2;
const ENV = {
  APP_KEY,
  SIGNING_KEY_REFRESH_SECONDS: "1",
  SIGNING_KEY_GRACE_DAYS: String(GRACE_DAYS),
};
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const DAY_MS = 86_400_000;

// Hooks and tests both: building the database template can outlast bun's 5 s default on a busy machine.
setDefaultTimeout(30_000);

let fresh: TestDatabase;
let t: TestApp;
let base: string;

/** The file's database for another app: closing that app leaves it open (fresh.drop() closes it). */
const shared = (): Database => ({ ...fresh.database, close: async () => {} });

beforeAll(async () => {
  fresh = await freshDatabase();
  t = await startTestApp({ database: shared(), env: ENV });
  base = t.listen();
});
afterAll(async () => {
  await t.close();
  await fresh.drop();
});

/** A NOT_FOUND validation (no license needed) with a nonce, read whole. */
async function answerFrom(url: string, nonce = `nonce-${crypto.randomUUID()}`): Promise<SignedMessage> {
  const message = await readSigned(
    await fetch(`${url}/api/v1/licenses/validate`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ key: "00000-00000-00000-00000-00000", nonce }),
    }),
  );
  expect(message.status).toBe(200);
  expect(bodyJson(message)).toMatchObject({ code: "NOT_FOUND", nonce });
  return message;
}

/** The kid an answer's `Signature-Input` names. */
const kidOf = (message: SignedMessage) =>
  /;keyid="([^"]+)"/.exec(message.headers["signature-input"] ?? "")?.[1];

/**
 * Asks `url` for answers until one's kid passes `wanted` (the keyring picks up a rotation in the
 * background, at most SIGNING_KEY_REFRESH_SECONDS after its last check), for at most `timeoutMs`.
 * Returns that answer and how long it took.
 */
async function pollAnswer(url: string, wanted: (kid: string | undefined) => boolean, timeoutMs = 10_000) {
  const started = Date.now();
  let last: string | undefined;
  while (Date.now() - started < timeoutMs) {
    const message = await answerFrom(url);
    last = kidOf(message);
    if (wanted(last)) return { message, waitedMs: Date.now() - started };
    await Bun.sleep(100);
  }
  throw new Error(`no answer with the wanted kid after ${timeoutMs} ms (last: ${last})`);
}
const answerSignedBy = (url: string, kid: string) => pollAnswer(url, (signer) => signer === kid);

/** Published kids, in the JWKS's order. */
const publishedKids = async (url = base) => (await fetchJwks(url)).keys.map((key) => key.kid);

const keyRow = async (kid: string) =>
  (await t.ctx.db.select().from(signingKeys).where(eq(signingKeys.kid, kid)))[0] ?? null;

/** The kid of the one active key (activated, not retired), read from the database. */
async function activeKid() {
  const rows = await t.ctx.db
    .select()
    .from(signingKeys)
    .where(and(isNull(signingKeys.retiredAt), isNotNull(signingKeys.activatedAt)));
  expect(rows).toHaveLength(1);
  return rows[0]?.kid ?? "";
}

/** Moves a key's retirement `days` into the past, as if it had been retired that long ago. */
async function retiredDaysAgo(kid: string, days: number) {
  const moved = await t.ctx.db
    .update(signingKeys)
    .set({ retiredAt: sql`now() - make_interval(days => ${days})` })
    .where(eq(signingKeys.kid, kid))
    .returning({ kid: signingKeys.kid });
  expect(moved).toEqual([{ kid }]);
}

describe("rotation", () => {
  test("answers switch to the new key within the refresh interval; one JWKS fetch, new key first, verifies both", async () => {
    const oldKid = await activeKid();
    const { message: before } = await answerSignedBy(base, oldKid);
    const jwksBefore = await fetch(`${base}/.well-known/jwks.json`);
    const etagBefore = jwksBefore.headers.get("etag") ?? "";
    expect(((await jwksBefore.json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid)).toEqual([
      oldKid,
    ]);

    const rotated = await rotateSigningKey(t.ctx);
    expect(rotated.retired?.kid).toBe(oldKid);
    expect(rotated.active.kid).not.toBe(oldKid);
    expect(rotated.dropped).toEqual([]);

    const { message: after, waitedMs } = await pollAnswer(base, (kid) => kid !== oldKid);
    expect(kidOf(after)).toBe(rotated.active.kid);
    // SIGNING_KEY_REFRESH_SECONDS=1: one interval, plus a background query, plus the polling step.
    expect(waitedMs).toBeLessThan(5_000);

    const jwks = await fetchJwks(base);
    expect(jwks.keys.map((key) => key.kid)).toEqual([rotated.active.kid, oldKid]);
    for (const key of jwks.keys) {
      expect(key.kid).toBe(await calculateJwkThumbprint({ kty: key.kty, crv: key.crv, x: key.x }, "sha256"));
    }
    expect(await verifyAnswer(before, jwks)).toMatchObject({ ok: true, kid: oldKid });
    expect(await verifyAnswer(after, jwks)).toMatchObject({ ok: true, kid: rotated.active.kid });
    // Neither verifies with the other's key alone.
    const only = (kid: string) => ({ keys: jwks.keys.filter((key) => key.kid === kid) });
    expect((await verifyAnswer(before, only(rotated.active.kid))).ok).toBe(false);
    expect((await verifyAnswer(after, only(oldKid))).ok).toBe(false);

    // The set changed, so its ETag did: a client holding the old one gets the new set, not a 304.
    const revalidated = await fetch(`${base}/.well-known/jwks.json`, {
      headers: { "if-none-match": etagBefore },
    });
    expect(revalidated.status).toBe(200);
    expect(revalidated.headers.get("etag")).not.toBe(etagBefore);
    expect(await revalidated.json()).toEqual(jwks);
  });

  test("a prepared key is published before it signs anything; the next rotation activates exactly it", async () => {
    const current = await activeKid();
    const prepared = await prepareNextKey(t.ctx);
    expect(prepared.created).toBe(true);
    expect(prepared.next.activatedAt).toBeNull();
    // Preparing again changes nothing: one next key at a time.
    const again = await prepareNextKey(t.ctx);
    expect({ created: again.created, kid: again.next.kid }).toEqual({
      created: false,
      kid: prepared.next.kid,
    });

    // Published (active first, then the next one) while answers stay signed by the current key.
    const pinned = await fetchJwks(base);
    expect(pinned.keys.map((key) => key.kid).slice(0, 2)).toEqual([current, prepared.next.kid]);
    await Bun.sleep(1_500); // past SIGNING_KEY_REFRESH_SECONDS: a refresh must not pick the next key
    const stillCurrent = await answerFrom(base);
    expect(kidOf(stillCurrent)).toBe(current);

    const rotated = await rotateSigningKey(t.ctx);
    expect({ active: rotated.active.kid, retired: rotated.retired?.kid, prepared: rotated.prepared }).toEqual(
      {
        active: prepared.next.kid,
        retired: current,
        prepared: true,
      },
    );
    // Software that pinned the set fetched before the rotation verifies answers from before and after.
    const { message: after } = await answerSignedBy(base, prepared.next.kid);
    expect(await verifyAnswer(stillCurrent, pinned)).toMatchObject({ ok: true, kid: current });
    expect(await verifyAnswer(after, pinned)).toMatchObject({ ok: true, kid: prepared.next.kid });
    expect(await activeKid()).toBe(prepared.next.kid);
  });

  test("rotating twice in a row leaves exactly one active key, the newest, published first", async () => {
    const first = await rotateSigningKey(t.ctx);
    const second = await rotateSigningKey(t.ctx);
    expect(second.retired?.kid).toBe(first.active.kid);
    expect(await activeKid()).toBe(second.active.kid);
    const kids = await publishedKids();
    expect(kids[0]).toBe(second.active.kid);
    expect(kids[1]).toBe(first.active.kid);
    const { message } = await answerSignedBy(base, second.active.kid);
    expect(await verifyAnswer(message, await fetchJwks(base))).toMatchObject({ ok: true });
  });
});

describe("grace period (SIGNING_KEY_GRACE_DAYS)", () => {
  test("a retired key past the grace period leaves the JWKS, stops verifying and is deleted; one within it stays", async () => {
    const expiring = await activeKid();
    const { message: signedByExpiring } = await answerSignedBy(base, expiring);
    const middle = await rotateSigningKey(t.ctx);
    expect(middle.retired?.kid).toBe(expiring);
    const newest = await rotateSigningKey(t.ctx);
    expect(newest.retired?.kid).toBe(middle.active.kid);
    expect(await verifyAnswer(signedByExpiring, await fetchJwks(base))).toMatchObject({ ok: true });

    await retiredDaysAgo(expiring, GRACE_DAYS + 1);
    await retiredDaysAgo(middle.active.kid, GRACE_DAYS - 1);

    // Unpublished at once, before anything deletes it.
    const kids = await publishedKids();
    expect(kids).not.toContain(expiring);
    expect(kids.slice(0, 2)).toEqual([newest.active.kid, middle.active.kid]);
    expect(await verifyAnswer(signedByExpiring, await fetchJwks(base))).toMatchObject({
      kid: expiring,
      signatureOk: false,
      ok: false,
    });

    expect(await dropExpiredKeys(t.ctx)).toEqual([expiring]);
    expect(await keyRow(expiring)).toBeNull();
    expect((await keyRow(middle.active.kid))?.retiredAt).toBeInstanceOf(Date);
    expect(await dropExpiredKeys(t.ctx)).toEqual([]);
    expect(await publishedKids()).toContain(middle.active.kid);
  });

  test("serve's hourly sweep drops them without a rotation or a restart, and logs which", async () => {
    const retired = (await rotateSigningKey(t.ctx)).retired?.kid ?? "";
    await retiredDaysAgo(retired, GRACE_DAYS + 1);
    const recorder = recordingLogger("info");
    const stop = dropExpiredKeysEvery({ ...t.ctx, log: recorder.log });
    try {
      // Its first round runs at once (at start), the next an hour later.
      for (let waited = 0; (await keyRow(retired)) !== null && waited < 5_000; waited += 50)
        await Bun.sleep(50);
      expect(await keyRow(retired)).toBeNull();
      expect(recorder.lines).toContainEqual(
        expect.objectContaining({ msg: "signing keys past their grace period dropped", kids: [retired] }),
      );
      expect(await activeKid()).toBeString();
    } finally {
      stop();
    }
  });

  test("a rotation drops the keys whose grace has ended and says which", async () => {
    const retired = (await rotateSigningKey(t.ctx)).retired?.kid ?? "";
    expect(await keyRow(retired)).not.toBeNull();
    await retiredDaysAgo(retired, GRACE_DAYS + 10);
    const next = await rotateSigningKey(t.ctx);
    expect(next.dropped).toEqual([retired]);
    expect(await keyRow(retired)).toBeNull();
    expect(await publishedKids()).not.toContain(retired);
  });
});

describe("several instances on one database", () => {
  test("a second instance signs with the same kid, publishes the same set, and picks up a rotation made by the first", async () => {
    const second = await startTestApp({ database: shared(), env: ENV });
    try {
      const secondBase = second.listen();
      // The first instance may still be catching up with the rotations of the tests above.
      const kid = await activeKid();
      const { message: fromFirst } = await answerSignedBy(base, kid);
      const fromSecond = await answerFrom(secondBase);
      expect(kidOf(fromSecond)).toBe(kid);
      const jwks = await fetchJwks(base);
      expect(await fetchJwks(secondBase)).toEqual(jwks);
      expect(await verifyAnswer(fromFirst, jwks)).toMatchObject({ ok: true, kid });
      expect(await verifyAnswer(fromSecond, jwks)).toMatchObject({ ok: true, kid });

      const rotated = await rotateSigningKey(t.ctx);
      const { message } = await answerSignedBy(secondBase, rotated.active.kid);
      expect(await verifyAnswer(message, await fetchJwks(base))).toMatchObject({ ok: true });
    } finally {
      await second.close();
    }
  });

  test("an instance whose APP_KEY cannot open the active key refuses to load, naming APP_KEY, and changes nothing", async () => {
    const before = await t.ctx.db.select().from(signingKeys);
    const keyring = new SigningKeyring({
      db: t.ctx.db,
      appKey: "a-different-app-key-0123456789abcdefghij",
      config: t.ctx.config,
      log: createLogger("silent"),
    });
    await expect(keyring.load()).rejects.toThrow(/APP_KEY/);
    expect(() => keyring.current()).toThrow();
    expect(await t.ctx.db.select().from(signingKeys)).toEqual(before);
  });
});

describe.skipIf(!onPostgres)("`depot keys:rotate` in another process, on PostgreSQL", () => {
  test("the running server signs with the key the command made; an expired key is dropped and reported", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "depot-keys-"));
    try {
      const rotated = await rotateSigningKey(t.ctx);
      const retired = rotated.retired?.kid ?? "";
      await retiredDaysAgo(retired, GRACE_DAYS + 1);
      const { message: active } = await answerSignedBy(base, rotated.active.kid);
      const beforeCli = rotated.active.kid;

      const result = await depot(["keys:rotate", "--json"], {
        DATABASE_URL: fresh.url ?? "",
        DATA_DIR: dataDir,
        ...ENV,
      });
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      const output = JSON.parse(result.stdout);
      expect(output.retired).toMatchObject({ kid: beforeCli, status: "retired" });
      expect(output.active).toMatchObject({ status: "active", retired_at: null, published_until: null });
      expect(output.dropped).toEqual([retired]);

      const { message } = await answerSignedBy(base, output.active.kid);
      const jwks = await fetchJwks(base);
      expect(jwks.keys[0]?.kid).toBe(output.active.kid);
      expect(jwks.keys.map((key) => key.kid)).not.toContain(retired);
      expect(await verifyAnswer(message, jwks)).toMatchObject({ ok: true, kid: output.active.kid });
      expect(await verifyAnswer(active, jwks)).toMatchObject({ ok: true, kid: beforeCli });

      // keys:list reads the same set, in the same order.
      const listed = await depot(["keys:list", "--json"], {
        DATABASE_URL: fresh.url ?? "",
        DATA_DIR: dataDir,
        ...ENV,
      });
      expect({ code: listed.code, stderr: listed.stderr }).toEqual({ code: 0, stderr: "" });
      const { keys } = JSON.parse(listed.stdout);
      expect(keys.map((key: { kid: string }) => key.kid)).toEqual(jwks.keys.map((key) => key.kid));
      expect(keys[0]).toEqual(output.active);
      expect(keys[1]).toMatchObject({
        kid: beforeCli,
        status: "retired",
        retired_at: output.retired.retired_at,
      });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("`depot keys:list` and `depot keys:rotate` on an embedded data directory", () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), "depot-keys-embedded-"));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  /** Keys as the commands print them. */
  const keyJson = (status: "active" | "next" | "retired") => ({
    kid: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    status,
    created_at: expect.stringMatching(ISO),
    activated_at: status === "next" ? null : expect.stringMatching(ISO),
    retired_at: status === "retired" ? expect.stringMatching(ISO) : null,
    published_until: status === "retired" ? expect.stringMatching(ISO) : null,
  });

  test("list, rotate, rotate, list: the JSON shapes, the human output, and a server on the directory publishing them", async () => {
    const run = async (...args: string[]) => {
      const result = await depot(args, { DATA_DIR: dataDir });
      expect({ args, code: result.code, stderr: result.stderr }).toEqual({ args, code: 0, stderr: "" });
      return result.stdout;
    };

    expect(JSON.parse(await run("keys:list", "--json"))).toEqual({ keys: [] });

    const first = JSON.parse(await run("keys:rotate", "--json"));
    expect(first).toEqual({ active: keyJson("active"), retired: null, prepared: false, dropped: [] });

    const human = await run("keys:rotate");
    const activeKid = /^Signing key (\S+) is active\.$/m.exec(human)?.[1] ?? "";
    expect(activeKid).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(activeKid).not.toBe(first.active.kid);
    expect(human).toContain(`Retired ${first.active.kid}: still published until `);

    const listed = JSON.parse(await run("keys:list", "--json"));
    expect(listed).toEqual({ keys: [keyJson("active"), keyJson("retired")] });
    const [active, retired] = listed.keys;
    expect(active.kid).toBe(activeKid);
    expect(retired.kid).toBe(first.active.kid);
    expect(retired.created_at).toBe(first.active.created_at);
    // Default grace: 30 days after retirement.
    expect(Date.parse(retired.published_until) - Date.parse(retired.retired_at)).toBe(30 * DAY_MS);
    expect(human).toContain(`still published until ${retired.published_until}`);

    const humanList = await run("keys:list");
    const lines = humanList.trimEnd().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toStartWith(`${activeKid}  active `);
    expect(lines[1]).toStartWith(`${first.active.kid}  retired`);
    expect(lines[1]).toContain(`published until ${retired.published_until}`);

    // --prepare publishes a next key after the active one; the human line says how to activate it.
    const next = JSON.parse(await run("keys:rotate", "--prepare", "--json"));
    expect(next).toEqual({ next: keyJson("next"), created: true });
    expect(await run("keys:rotate", "--prepare")).toBe(
      `Signing key ${next.next.kid} was already the next key; \`depot keys:rotate\` activates it.\n`,
    );
    expect(JSON.parse(await run("keys:list", "--json")).keys.map((key: { kid: string }) => key.kid)).toEqual([
      activeKid,
      next.next.kid,
      first.active.kid,
    ]);

    // A server on that directory publishes exactly those keys, and signs with the active one.
    const server = await startServer({ DATA_DIR: dataDir });
    try {
      const jwks = await fetchJwks(server.url);
      expect(jwks.keys.map((key) => key.kid)).toEqual([activeKid, next.next.kid, first.active.kid]);
      for (const key of jwks.keys) {
        expect(key.kid).toBe(
          await calculateJwkThumbprint({ kty: key.kty, crv: key.crv, x: key.x }, "sha256"),
        );
      }
      const answer = await answerFrom(server.url);
      expect(await verifyAnswer(answer, jwks)).toMatchObject({ ok: true, kid: activeKid });
    } finally {
      server.proc.kill("SIGTERM");
      expect(await server.proc.exited).toBe(0);
    }
  }, 120_000);
});
