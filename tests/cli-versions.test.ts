import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { versionsCommand } from "../src/cli/versions.ts";
import { loadConfig } from "../src/config.ts";
import { readJson, recordingLogger, startTestApp, type TestApp } from "./helpers/app.ts";
import { depot, stderrLines } from "./helpers/cli.ts";
import { createBenefit, createOption, createProduct, createUser, tokenFor } from "./helpers/factories.ts";
import { publishedVersion } from "./helpers/publish.ts";

/**
 * `depot versions` (docs/reference/cli.md, Client commands) against a real listening depot: every page of the list
 * (more versions than one page holds), `--json`, the table, `--benefit`, and the exit codes.
 */

/** One more than a page of 100 holds, plus the benefit's: the command must follow the pages. */
const WHOLE_PRODUCT_VERSIONS = 101;

const recorder = recordingLogger("info");
let t: TestApp;
let base: string;
let token: string;
let productId: number;
let emptyProductId: number;
let benefitId: number;

beforeAll(async () => {
  t = await startTestApp({ jobs: "send", log: recorder.log });
  base = t.listen();
  const owner = await createUser(t.ctx, { role: "vendor" });
  token = await tokenFor(t.ctx, owner);
  const product = await createProduct(t.ctx, owner);
  productId = product.id;
  emptyProductId = (await createProduct(t.ctx, owner)).id;
  const option = await createOption(t.ctx, product);
  benefitId = (await createBenefit(t.ctx, { id: option.id, productId })).id;
  for (let i = 1; i <= WHOLE_PRODUCT_VERSIONS; i++) {
    await publishedVersion(base, token, productId, {
      name: `1.0.${i}`,
      bytes: `release ${i}`,
      fileName: `app-1.0.${i}.jar`,
    });
  }
  for (const name of ["1.0.0", "2.0.0"]) {
    await publishedVersion(base, token, productId, {
      name,
      bytes: "sources",
      fileName: `src-${name}.zip`,
      benefitId,
    });
  }
}, 120_000);
afterAll(() => t.close());
beforeEach(() => {
  recorder.lines.length = 0;
});

const env = (more: Record<string, string | undefined> = {}) => ({
  DEPOT_URL: base,
  DEPOT_TOKEN: token,
  ...more,
});
const versions = (args: string[], more: Record<string, string | undefined> = {}) =>
  depot(["versions", ...args], env(more));

/** The whole list as the API pages it, newest first. */
async function apiList(product: number) {
  const all = [];
  for (let page = 1; ; page++) {
    const response = await fetch(`${base}/api/products/${product}/versions?per_page=100&page=${page}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const body = await readJson(response);
    all.push(...body.data);
    if (body.links.next === null) return all;
  }
}

describe("depot versions", () => {
  test("--json: one object with every version, all pages followed, newest first, as the API sends them", async () => {
    const result = await versions(["--product", String(productId), "--json"]);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: "" });
    expect(result.stdout.trim().split("\n")).toHaveLength(1);
    // Two pages of 100, counted before this test asks the API itself. GETs only: the log line of the
    // last publish in beforeAll may land after beforeEach cleared the log.
    const pages = recorder.lines.filter(
      (line) => line.msg === "request" && line.method === "GET" && String(line.path).endsWith("/versions"),
    );
    expect(pages.map((line) => line.status)).toEqual([200, 200]);
    const listed = JSON.parse(result.stdout);
    expect(Object.keys(listed)).toEqual(["versions"]);
    expect(listed.versions).toHaveLength(WHOLE_PRODUCT_VERSIONS + 2);
    expect(listed.versions).toEqual(await apiList(productId));
    const ids = listed.versions.map((v: { id: number }) => v.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(listed.versions[0]).toMatchObject({ version_number: "2.0.0", purchase_benefit_id: benefitId });
    expect(listed.versions[2]).toMatchObject({
      version_number: `1.0.${WHOLE_PRODUCT_VERSIONS}`,
      purchase_benefit_id: null,
      file_name: `app-1.0.${WHOLE_PRODUCT_VERSIONS}.jar`,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  test("--benefit keeps that benefit's versions; without --json a table", async () => {
    const json = await versions(["--product", String(productId), "--benefit", String(benefitId), "--json"]);
    const listed = JSON.parse(json.stdout).versions;
    expect(listed.map((v: { version_number: string }) => v.version_number)).toEqual(["2.0.0", "1.0.0"]);

    const table = await versions(["--product", String(productId), "--benefit", String(benefitId)]);
    expect(table.code).toBe(0);
    const [header, ...rows] = table.stdout.trimEnd().split("\n");
    expect(header?.split(/ {2,}/)).toEqual([
      "ID",
      "VERSION",
      "BENEFIT",
      "CHANNEL",
      "STATUS",
      "ROLLOUT",
      "FILE",
      "SIZE",
      "RELEASED",
    ]);
    expect(rows.map((row) => row.split(/ {2,}/))).toEqual(
      listed.map(
        (v: {
          id: number;
          version_number: string;
          benefit_name: string;
          file_name: string;
          published_at: string;
        }) => [
          String(v.id),
          v.version_number,
          v.benefit_name,
          "stable",
          "published",
          "100%",
          v.file_name,
          "7 B",
          v.published_at.replace(/\.\d+Z$/, "Z"),
        ],
      ),
    );
    // Columns line up: every row's FILE starts where the header's does.
    const fileColumn = header?.indexOf("FILE") ?? -1;
    for (const [row, version] of rows.map((row, i) => [row, listed[i]] as const)) {
      expect(row.indexOf(version.file_name)).toBe(fileColumn);
    }
  });

  test("a product without versions", async () => {
    const table = await versions(["--product", String(emptyProductId)]);
    expect({ code: table.code, stdout: table.stdout }).toEqual({ code: 0, stdout: "No versions.\n" });
    const json = await versions(["--product", String(emptyProductId), "--json"]);
    expect(JSON.parse(json.stdout)).toEqual({ versions: [] });
  });

  test("refusals exit 1 with the server's message", async () => {
    const wrongToken = await versions(["--product", String(productId)], { DEPOT_TOKEN: "1|nope" });
    expect(wrongToken.code).toBe(1);
    expect(wrongToken.stdout).toBe("");
    expect(stderrLines(wrongToken)).toEqual([
      `depot versions: ${base} refused the token from DEPOT_TOKEN (401: Unauthenticated.): ` +
        "check that it is complete, not revoked or expired, and made on this server",
    ]);
    const unknown = await versions(["--product", "999999"]);
    expect(unknown.code).toBe(1);
    expect(stderrLines(unknown)).toEqual([
      `depot versions: ${base}/api/products/999999/versions?per_page=100&page=1 answered 404: Product not found.`,
    ]);
  });

  test("a token given with --token is named so when refused", async () => {
    const result = await versions(["--product", String(productId), "--token", "1|nope"]);
    expect({ code: result.code, stdout: result.stdout, stderr: stderrLines(result) }).toEqual({
      code: 1,
      stdout: "",
      stderr: [
        `depot versions: ${base} refused the token from --token (401: Unauthenticated.): ` +
          "check that it is complete, not revoked or expired, and made on this server",
      ],
    });
  });

  test("usage errors exit 2 before any request", async () => {
    const cases: [string[], Record<string, string | undefined>, string][] = [
      [
        ["--product", String(productId)],
        { DEPOT_TOKEN: undefined },
        "no token: pass --token T, set DEPOT_TOKEN, or run depot login",
      ],
      [
        ["--product", String(productId)],
        { DEPOT_URL: undefined },
        "no server: pass --server URL, set DEPOT_URL, or run depot login",
      ],
      [[], {}, "--product is required"],
      [
        ["--product", "ultra-perms"],
        {},
        '--product must be an id (a positive whole number), got "ultra-perms"',
      ],
    ];
    for (const [args, more, message] of cases) {
      const result = await versions(args, more);
      expect({ args, code: result.code, stdout: result.stdout, first: stderrLines(result)[0] }).toEqual({
        args,
        code: 2,
        stdout: "",
        first: `depot versions: ${message}`,
      });
    }
    expect(recorder.lines.filter((line) => line.msg === "request")).toEqual([]);
  });
});

describe("the client commands in the CLI", () => {
  test("a mistyped option names the one it is close to, then the usage (exit 2)", async () => {
    const result = await versions(["--product", String(productId), "--jsno"]);
    expect({ code: result.code, stdout: result.stdout, stderr: stderrLines(result) }).toEqual({
      code: 2,
      stdout: "",
      stderr: [
        "depot versions: unknown option --jsno (did you mean --json?)",
        `usage: ${versionsCommand.usage}`,
      ],
    });
    expect(recorder.lines.filter((line) => line.msg === "request")).toEqual([]);
  });

  test("depot --help lists them; <command> --help explains the options", async () => {
    const help = await depot(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain(
      "depot versions --product ID [--benefit ID] [--json] [--server URL] [--token T]",
    );
    expect(help.stdout).toMatch(/depot download --product ID .*\[-o PATH\]/);
    const download = await depot(["download", "--help"]);
    expect(download.code).toBe(0);
    expect(download.stdout).toContain("Exit codes: 0 saved, 1 refused or not verified, 2 usage, 3 network");
    expect(download.stdout).toContain("[-o PATH] [--force]");
    expect(download.stdout).toContain("A file already there under that name is replaced only with --force");
  });

  test("they need no server configuration: the defaults load from an empty environment", () => {
    expect(() => loadConfig({})).not.toThrow();
  });
});
