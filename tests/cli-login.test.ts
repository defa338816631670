import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configDirectory } from "../src/cli/login-store.ts";
import { startTestApp, type TestApp } from "./helpers/app.ts";
import { depot, stderrLines } from "./helpers/cli.ts";
import { createProduct, createUser, tokenFor } from "./helpers/factories.ts";

// `depot login` keeps a server and a token for the client commands (publish, versions, download),
// in a 0600 file in the platform's config directory; flags and DEPOT_* variables still win, and the
// token never goes to another server. Against a listening server on the test database.

let t: TestApp;
let base: string;
let token: string;
let productId: number;
let configDir: string;
let env: Record<string, string | undefined>;

beforeAll(async () => {
  t = await startTestApp();
  base = t.listen();
  const vendor = await createUser(t.ctx, { role: "vendor" });
  token = await tokenFor(t.ctx, vendor);
  productId = (await createProduct(t.ctx, vendor)).id;
  configDir = join(mkdtempSync(join(tmpdir(), "depot-login-")), "config", "depot");
  // No server or token from the environment: only what login stores (DEPOT_RETRIES: fail fast).
  env = { DEPOT_CONFIG_DIR: configDir, DEPOT_URL: undefined, DEPOT_TOKEN: undefined, DEPOT_RETRIES: "0" };
}, 60_000);
afterAll(async () => {
  await t.close();
  rmSync(join(configDir, "..", ".."), { recursive: true, force: true });
});

const loginPath = () => join(configDir, "login.json");

describe("depot login", () => {
  test("a token the server refuses is not stored", async () => {
    const result = await depot(
      ["login", "--server", base, "--with-token"],
      env,
      undefined,
      "1|not-the-secret\n",
    );
    expect(result.code).toBe(1);
    expect(stderrLines(result)[0]).toStartWith(`depot login: ${base} refused the token`);
    expect(existsSync(loginPath())).toBe(false);
  }, 30_000);

  test("no server: a usage error naming where one comes from", async () => {
    const result = await depot(["login", "--with-token"], env, undefined, `${token}\n`);
    expect(result.code).toBe(2);
    expect(stderrLines(result)[0]).toBe(
      "depot login: no server: pass --server URL, set DEPOT_URL, or run depot login",
    );
  }, 30_000);

  test("no token on stdin or in DEPOT_TOKEN is a usage error", async () => {
    const result = await depot(["login", "--server", base, "--with-token"], env, undefined, "");
    expect(result.code).toBe(2);
    expect(stderrLines(result)).toEqual(["depot login: expected the token on stdin (one line)"]);
  }, 30_000);

  test("--with-token checks the token and stores server and token in a 0600 file", async () => {
    const result = await depot(
      ["login", "--server", `${base}/`, "--with-token", "--json"],
      env,
      undefined,
      `${token}\n`,
    );
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ server: base, file: loginPath() });
    expect(JSON.parse(readFileSync(loginPath(), "utf8"))).toEqual({ server: base, token });
    expect(statSync(loginPath()).mode & 0o777).toBe(0o600);
    expect(statSync(configDir).mode & 0o777).toBe(0o700);
  }, 30_000);

  test("logging in again without --server keeps the stored server", async () => {
    const result = await depot(["login", "--with-token"], env, undefined, `${token}\n`);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`Logged in to ${base}; the token is kept in ${loginPath()}.\n`);
  }, 30_000);

  test("versions then needs neither --server nor --token", async () => {
    const result = await depot(["versions", "--product", String(productId), "--json"], env);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ versions: [] });
  }, 30_000);

  test("DEPOT_TOKEN and --token still win over the stored token", async () => {
    for (const [args, extra] of [
      [[], { DEPOT_TOKEN: "1|wrong" }],
      [["--token", "1|wrong"], {}],
    ] as const) {
      const result = await depot(["versions", "--product", String(productId), ...args], { ...env, ...extra });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain("refused the token from");
      expect(result.stderr).not.toContain("depot login");
    }
  }, 30_000);

  test("the stored token is never sent to another server", async () => {
    const result = await depot(["versions", "--product", "1", "--server", "http://127.0.0.1:9"], env);
    expect(result.code).toBe(2);
    expect(stderrLines(result)[0]).toBe(
      "depot versions: no token: pass --token T, set DEPOT_TOKEN, or run depot login",
    );
  }, 30_000);

  test("depot logout removes the file", async () => {
    const result = await depot(["logout"], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`Logged out of ${base}; removed ${loginPath()}.\n`);
    expect(existsSync(loginPath())).toBe(false);
    const again = await depot(["versions", "--product", String(productId)], env);
    expect(again.code).toBe(2);
    expect(stderrLines(again)[0]).toBe(
      "depot versions: no server: pass --server URL, set DEPOT_URL, or run depot login",
    );
  }, 30_000);
});

describe("the platform's config directory", () => {
  test("as gh keeps its own: XDG on Linux, Application Support on macOS, APPDATA on Windows", () => {
    expect(configDirectory({ HOME: "/home/a" }, "linux")).toBe("/home/a/.config/depot");
    expect(configDirectory({ HOME: "/home/a", XDG_CONFIG_HOME: "/x" }, "linux")).toBe("/x/depot");
    expect(configDirectory({ HOME: "/Users/a" }, "darwin")).toBe(
      "/Users/a/Library/Application Support/depot",
    );
    expect(
      configDirectory({ HOME: "C:\\Users\\a", APPDATA: "C:\\Users\\a\\AppData\\Roaming" }, "win32"),
    ).toBe(join("C:\\Users\\a\\AppData\\Roaming", "depot"));
    expect(configDirectory({ HOME: "/home/a", DEPOT_CONFIG_DIR: "/etc/depot-ci" }, "linux")).toBe(
      "/etc/depot-ci",
    );
  });
});
