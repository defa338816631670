import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readJson } from "./helpers/app.ts";
import { cliEnv, depot, startServer, stderrLines } from "./helpers/cli.ts";
import { freshDatabase, onPostgres } from "./helpers/db.ts";
import { unusedPort } from "./helpers/ports.ts";

/**
 * The signing key is sealed under APP_KEY. `depot serve` with another APP_KEY must stop before it
 * listens, with one line naming APP_KEY (never answer unsigned, never print a stack); the right
 * APP_KEY works again with the same key; `depot keys:rotate` under the new APP_KEY is the way out,
 * and what the old key signed keeps verifying because it stays published.
 */

const MAIN = join(import.meta.dir, "../src/main.ts");
const KEY_A = `app-key-A-${crypto.randomUUID()}`;
const KEY_B = `app-key-B-${crypto.randomUUID()}`;
const PREFIX = "depot: invalid configuration: APP_KEY: ";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "depot-signing-start-"));
  dirs.push(dir);
  return dir;
};

type Server = Awaited<ReturnType<typeof startServer>>;

async function stop(server: Server) {
  server.proc.kill("SIGTERM");
  expect(await server.proc.exited).toBe(0);
}

/** The published key ids, in the JWKS's order (active first). */
async function publishedKids(url: string): Promise<string[]> {
  const response = await fetch(`${url}/.well-known/jwks.json`);
  expect(response.status).toBe(200);
  return (await readJson(response)).keys.map((key: { kid: string }) => key.kid);
}

/** The key a server signs with now: the `keyid` of a validation answer's signature. */
async function signingKid(url: string): Promise<string> {
  const response = await fetch(`${url}/api/v1/licenses/validate`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ key: "NO-SUCH-KEY" }),
  });
  expect(response.status).toBe(200);
  expect((await readJson(response)).code).toBe("NOT_FOUND");
  const kid = /;keyid="([^"]+)";/.exec(response.headers.get("signature-input") ?? "")?.[1];
  expect(kid).toBeString();
  return kid ?? "";
}

/**
 * `depot serve` expected to fail: watches /api/health until the process exits, so a server that
 * listened (even briefly) before failing is caught. Logs at info, so a "listening" line would show.
 */
async function serveExpectingExit(env: Record<string, string>, timeoutMs = 60_000) {
  const port = unusedPort();
  const proc = Bun.spawn([process.execPath, MAIN, "serve"], {
    env: cliEnv({ PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "info", ...env }),
    stdout: "pipe",
    stderr: "pipe",
  });
  const output = Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  let answered = false;
  const deadline = Date.now() + timeoutMs;
  while (proc.exitCode === null && Date.now() < deadline) {
    const status = await fetch(`http://127.0.0.1:${port}/api/health`)
      .then((r) => r.status)
      .catch(() => null);
    if (status !== null) answered = true;
    await Bun.sleep(50);
  }
  if (proc.exitCode === null) {
    proc.kill("SIGKILL");
    throw new Error(`depot serve with a wrong APP_KEY was still running after ${timeoutMs} ms`);
  }
  const code = await proc.exited;
  const [stdout, stderr] = await output;
  const logged = stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line).msg as string);
  return { code, stdout, stderr, answered, logged };
}

/** The one-line refusal: exit 2, nothing served, APP_KEY named with the key it cannot open. */
function expectRefused(result: Awaited<ReturnType<typeof serveExpectingExit>>, kid: string) {
  expect({ code: result.code, answered: result.answered }).toEqual({ code: 2, answered: false });
  expect(result.logged).not.toContain("listening");
  const lines = stderrLines(result);
  expect(lines).toHaveLength(1);
  const [line = ""] = lines;
  expect(line.startsWith(PREFIX)).toBe(true);
  expect(line).toContain(`cannot decrypt signing key ${kid}`);
  expect(line).toContain("depot keys:rotate");
  expect(result.stderr).not.toMatch(/^\s+at /m);
  // The secrets themselves are never printed.
  for (const secret of [KEY_A, KEY_B]) expect(result.stderr + result.stdout).not.toContain(secret);
}

interface RotateJson {
  active: { kid: string; status: string; retired_at: string | null };
  retired: { kid: string; status: string; retired_at: string | null; published_until: string | null } | null;
  dropped: string[];
}

async function rotate(env: Record<string, string>): Promise<RotateJson> {
  const result = await depot(["keys:rotate", "--json"], env);
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: "" });
  return JSON.parse(result.stdout);
}

function expectRotated(rotated: RotateJson, from: string) {
  expect(rotated.active).toMatchObject({ status: "active", retired_at: null });
  expect(rotated.active.kid).not.toBe(from);
  expect(rotated.retired).toMatchObject({ kid: from, status: "retired" });
  // Published for the default 30 days of grace.
  const retiredAt = Date.parse(rotated.retired?.retired_at ?? "");
  expect(Date.parse(rotated.retired?.published_until ?? "")).toBe(retiredAt + 30 * 86_400_000);
  expect(rotated.dropped).toEqual([]);
}

describe("starting with an APP_KEY that cannot open the signing key", () => {
  test("embedded database: A starts; B stops at once naming APP_KEY; A again works with the same key; keys:rotate under B recovers", async () => {
    const dataDir = tempDir();
    const withKey = (key: string) => ({ DATA_DIR: dataDir, APP_KEY: key });

    // First start under A: the database unpacked, the first signing key.
    const first = await startServer(withKey(KEY_A), 60_000);
    let kidA = "";
    try {
      const kids = await publishedKids(first.url);
      expect(kids).toHaveLength(1);
      kidA = kids[0] ?? "";
      expect(await signingKid(first.url)).toBe(kidA);
    } finally {
      await stop(first);
    }

    expectRefused(await serveExpectingExit(withKey(KEY_B)), kidA);

    // The refusal changed nothing: A starts (the data directory's lock was released) with the same key.
    const again = await startServer(withKey(KEY_A), 60_000);
    try {
      expect(await publishedKids(again.url)).toEqual([kidA]);
      expect(await signingKid(again.url)).toBe(kidA);
    } finally {
      await stop(again);
    }

    // The recovery path: a new key sealed under B; A's key stays published for what it signed.
    const rotated = await rotate(withKey(KEY_B));
    expectRotated(rotated, kidA);
    const kidB = rotated.active.kid;
    const underB = await startServer(withKey(KEY_B), 60_000);
    try {
      expect(await publishedKids(underB.url)).toEqual([kidB, kidA]);
      expect(await signingKid(underB.url)).toBe(kidB);
    } finally {
      await stop(underB);
    }

    // Now A is the key that cannot open the active one.
    expectRefused(await serveExpectingExit(withKey(KEY_A)), kidB);
  }, 180_000);

  test.skipIf(!onPostgres)(
    onPostgres
      ? "PostgreSQL: B beside a running A stops naming APP_KEY and A keeps serving; keys:rotate under B lets B start"
      : "PostgreSQL — SKIPPED: set TEST_DATABASE_URL to a PostgreSQL server to run it",
    async () => {
      const fresh = await freshDatabase();
      const env = (key: string) => ({ DATABASE_URL: fresh.url ?? "", DATA_DIR: tempDir(), APP_KEY: key });
      try {
        const a = await startServer(env(KEY_A), 60_000);
        try {
          const [kidA = ""] = await publishedKids(a.url);
          expect(await publishedKids(a.url)).toEqual([kidA]);

          expectRefused(await serveExpectingExit(env(KEY_B)), kidA);
          // A was not disturbed.
          expect(await signingKid(a.url)).toBe(kidA);

          const rotated = await rotate(env(KEY_B));
          expectRotated(rotated, kidA);
          const kidB = rotated.active.kid;
          const b = await startServer(env(KEY_B), 60_000);
          try {
            expect(await publishedKids(b.url)).toEqual([kidB, kidA]);
            expect(await signingKid(b.url)).toBe(kidB);
            // A, which cannot open B's key, publishes the same set.
            expect(await publishedKids(a.url)).toEqual([kidB, kidA]);
          } finally {
            await stop(b);
          }
        } finally {
          await stop(a);
        }
      } finally {
        await fresh.drop();
      }
    },
    120_000,
  );
});
