import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bearer, readJson } from "./helpers/app.ts";
import { depot, startServer, stderrLines } from "./helpers/cli.ts";

// The embedded database belongs to `depot serve` (one process, one connection). Administrative
// commands run beside it go through the server's control socket (cli/admin-action.ts) instead of
// refusing: the server runs them and logs each, and its lock on DATA_DIR is held throughout. Spawned
// processes on PGlite whatever TEST_DATABASE_URL says: the control socket exists only there.

const APP_URL = "http://depot.example:8080";
let dataDir: string;
let server: Awaited<ReturnType<typeof startServer>>;
let env: Record<string, string>;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "depot-cli-serving-"));
  env = { DATA_DIR: dataDir };
  server = await startServer({ ...env, APP_URL, LOG_LEVEL: "info" }, 60_000);
}, 90_000);
afterAll(() => {
  if (server.proc.exitCode === null) server.proc.kill("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

const json = (stdout: string) => JSON.parse(stdout) as Record<string, unknown>;

/** Commands sent straight to the socket with input the CLI would never send, and the field at fault. */
const REFUSED: [string, unknown, string][] = [
  ["user:password", { email: "vera@example.com", password: "x" }, "password"],
  ["user:password", { email: "vera@example.com", password: "x".repeat(1025) }, "password"],
  ["user:password", { email: 5, password: "long enough" }, "email"],
  ["user:password", { email: "vera@example.com", password: ["long enough"] }, "password"],
  ["user:password", null, "input"],
  ["user:create", { name: "One", email: "one@example.com", role: "customer", password: "x" }, "password"],
  ["user:create", { name: ["One"], email: "one@example.com", password: null }, "name"],
  ["user:create", { name: "One", email: "not an address", password: null }, "email"],
  ["user:create", "one@example.com", "input"],
  ["api-key:create", { name: "", creatorId: null }, "name"],
  ["api-key:create", { name: "x".repeat(100_000), creatorId: null }, "name"],
  ["api-key:create", { name: "shop", creatorId: "one" }, "creatorId"],
  ["api-key:create", { name: 42, creatorId: null }, "name"],
  ["token:create", { userId: "1", name: "ci" }, "userId"],
  ["token:create", { userId: 1, name: "" }, "name"],
  ["token:create", { userId: 1, name: "ci", abilities: "*" }, "abilities"],
  ["product:create", { name: "X", owner: { email: "vera@example.com" } }, "owner"],
  ["product:create", { name: "x".repeat(256), owner: "vera@example.com" }, "name"],
  ["keys:list", { all: true }, "input"],
  ["keys:rotate", [], "input"],
];

describe("administrative commands while depot serve runs on the embedded database", () => {
  let token: string;

  test("user:create --json creates the user in the running server's database", async () => {
    expect((await fetch(`${server.url}/api/setup`)).status).toBe(200);
    const result = await depot(
      ["user:create", "--name", "Admin", "--email", "admin@example.com", "--role", "admin", "--json"],
      env,
    );
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(json(result.stdout)).toEqual({ id: 1, name: "Admin", email: "admin@example.com", role: "admin" });
    // The server sees the user at once: first-run setup is over.
    expect((await fetch(`${server.url}/api/setup`)).status).toBe(404);
  }, 30_000);

  test("user:create --password-stdin: the admin can sign in to the running server", async () => {
    const result = await depot(
      [
        "user:create",
        "--name",
        "Vera",
        "--email",
        "vera@example.com",
        "--role",
        "vendor",
        "--password-stdin",
      ],
      env,
      undefined,
      "vera's password\n",
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("Created user 2 <vera@example.com> with role vendor.\n");
    const signIn = await fetch(`${server.url}/api/auth/sign-in`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "vera@example.com", password: "vera's password" }),
    });
    expect(signIn.status).toBe(200);
  }, 30_000);

  test("token:create --json: the token authenticates against the running server", async () => {
    const result = await depot(["token:create", "--user", "1", "--json"], env);
    expect(result.code).toBe(0);
    const created = json(result.stdout);
    expect(Object.keys(created).sort()).toEqual(["id", "token"]);
    token = String(created.token);
    expect(token).toStartWith(`${created.id}|`);
    const me = await fetch(`${server.url}/api/users/1`, { headers: bearer(token) });
    expect(me.status).toBe(200);
    expect(((await readJson(me)) as { data: { email: string } }).data.email).toBe("admin@example.com");
  }, 30_000);

  test("api-key:create --json and keys:rotate --json", async () => {
    const key = await depot(["api-key:create", "--name", "shop", "--json"], env);
    expect(key.code).toBe(0);
    expect(json(key.stdout)).toEqual({ id: 1, key: expect.stringMatching(/^\S{20,}$/), creator_id: null });
    const before = await depot(["keys:list", "--json"], env);
    expect(before.code).toBe(0);
    const activeBefore = (json(before.stdout).keys as { kid: string; status: string }[]).find(
      (k) => k.status === "active",
    );
    const rotated = await depot(["keys:rotate", "--json"], env);
    expect(rotated.code).toBe(0);
    const result = json(rotated.stdout) as { active: { kid: string }; retired: { kid: string } | null };
    expect(result.retired?.kid).toBe(activeBefore?.kid);
    expect(result.active.kid).not.toBe(activeBefore?.kid);
  }, 30_000);

  test("product:create --json: a product owned by the user with that e-mail, as the API shows it", async () => {
    const result = await depot(
      ["product:create", "--name", "Ultra Perms", "--owner", "VERA@example.com", "--json"],
      env,
    );
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const product = json(result.stdout);
    expect(product).toMatchObject({
      id: 1,
      name: "Ultra Perms",
      slug: "ultra-perms",
      user_id: 2,
      hidden: "0",
      purchases: "0",
      full_url: `${APP_URL}/products/ultra-perms`,
    });
    const read = await fetch(`${server.url}/api/products/1`, { headers: bearer(token) });
    expect(read.status).toBe(200);
    expect(((await readJson(read)) as { data: unknown }).data).toEqual(product);
    const human = await depot(
      ["product:create", "--name", "Ultra Perms", "--owner", "vera@example.com"],
      env,
    );
    expect(human.code).toBe(0);
    expect(human.stdout).toBe(
      'Created product 2 "Ultra Perms" (slug ultra-perms-2), owned by <vera@example.com>.\n',
    );
  }, 30_000);

  test("a refused command says what the server said, in the same words as when depot is stopped", async () => {
    const taken = await depot(["user:create", "--name", "Again", "--email", "ADMIN@example.com"], env);
    expect(taken.code).toBe(1);
    expect(taken.stdout).toBe("");
    expect(stderrLines(taken)).toEqual(["depot user:create: The email has already been taken."]);
    const nobody = await depot(["token:create", "--user", "999"], env);
    expect(nobody.code).toBe(1);
    expect(stderrLines(nobody)).toEqual(["depot token:create: User not found."]);
    const noOwner = await depot(["product:create", "--name", "X", "--owner", "nobody@example.com"], env);
    expect(noOwner.code).toBe(1);
    expect(stderrLines(noOwner)).toEqual(["depot product:create: No user has the email nobody@example.com."]);
    const missing = await depot(["product:create", "--name", "X"], env);
    expect(missing.code).toBe(2);
    expect(stderrLines(missing)[0]).toBe("depot product:create: --owner is required");
    const wrongCreator = await depot(["api-key:create", "--creator", "999"], env);
    expect(wrongCreator.code).toBe(1);
    expect(wrongCreator.stderr).toStartWith("depot api-key:create: ");
  }, 30_000);

  test("through the socket itself, every command checks its input as the CLI and the API do: 400 naming the field", async () => {
    // What a client other than depot's CLI could send: too short a password, an empty or a huge
    // name, wrong types. Each is refused before anything is done, never with a 500.
    for (const [name, input, field] of REFUSED) {
      const response = await fetch("http://depot/command", {
        method: "POST",
        unix: join(dataDir, "depot.sock"),
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name, input }),
      });
      const body = (await response.json()) as { message: unknown; errors?: Record<string, unknown> };
      expect({ name, input: JSON.stringify(input).slice(0, 80), status: response.status }).toEqual({
        name,
        input: JSON.stringify(input).slice(0, 80),
        status: 400,
      });
      expect(body.message).toEqual(expect.any(String));
      expect(Object.keys(body.errors ?? {})).toEqual([field]);
      expect(body.errors?.[field]).toEqual([expect.any(String)]);
    }
    // Nothing was done: Vera's password is the one she set, no key, token, user or product was made.
    const signIn = await fetch(`${server.url}/api/auth/sign-in`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "vera@example.com", password: "vera's password" }),
    });
    expect(signIn.status).toBe(200);
    const keys = await fetch(`${server.url}/api/admin/api-keys`, { headers: bearer(token) });
    expect(((await readJson(keys)) as { data: unknown[] }).data).toHaveLength(1);
    const one = await depot(["user:create", "--name", "One", "--email", "one@example.com", "--json"], env);
    expect(json(one.stdout)).toMatchObject({ id: 3, email: "one@example.com" });
  }, 30_000);

  test("the CLI says what the server refused, in the API's words", async () => {
    const long = await depot(["api-key:create", "--name", "x".repeat(256)], env);
    expect(long.code).toBe(1);
    expect(stderrLines(long)).toEqual([
      "depot api-key:create: The name field must not be greater than 255 characters.",
    ]);
  }, 30_000);

  test("the server held DATA_DIR throughout, ran each command and logged it; its setup link was printed", async () => {
    // Nobody else opened the database: the lock is still the server's.
    expect(readFileSync(join(dataDir, "depot.pid"), "utf8").trim()).toBe(String(server.proc.pid));
    server.proc.kill("SIGTERM");
    expect(await server.proc.exited).toBe(0);
    const [stdout, stderr] = await Promise.all([
      new Response(server.proc.stdout).text(),
      new Response(server.proc.stderr).text(),
    ]);
    const lines = stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.filter((line) => line.msg === "control command").map((line) => line.command)).toEqual([
      "user:create",
      "user:create",
      "token:create",
      "api-key:create",
      "keys:list",
      "keys:rotate",
      "product:create",
      "product:create",
      "user:create",
      "token:create",
      "product:create",
      "api-key:create",
      ...REFUSED.map(([name]) => name),
      "user:create",
      "api-key:create",
    ]);
    // First run: the link to create the first admin on stderr; the log says so, without its code.
    const printed = /\n {2}http:\/\/depot\.example:8080\/setup\?code=([A-Za-z0-9_-]{43})\n/.exec(stderr)?.[1];
    expect(printed).toBeDefined();
    expect(lines.find((line) => line.setup_link_expires_at !== undefined)?.msg).toBe(
      "no users yet: a link to create the first admin is printed on stderr",
    );
    expect(stdout).not.toContain(printed ?? "");
  }, 30_000);

  test("once serve is stopped the same commands open the database themselves", async () => {
    const result = await depot(
      ["product:create", "--name", "Offline", "--owner", "admin@example.com", "--json"],
      env,
    );
    expect(result.code).toBe(0);
    expect(json(result.stdout)).toMatchObject({ id: 3, slug: "offline", user_id: 1 });
  }, 30_000);
});
