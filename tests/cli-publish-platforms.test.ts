import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bearer, readJson, recordingLogger, startTestApp, type TestApp } from "./helpers/app.ts";
import { randomBytes, sha256 } from "./helpers/bytes.ts";
import { depot, jsonOf } from "./helpers/cli.ts";
import { createProduct, createUser, tokenFor } from "./helpers/factories.ts";

/**
 * Publishing from a CI matrix with the real client against a real listening depot (README, Publishing
 * from CI): `depot publish` with several files, --platform/--arch (or what the names say),
 * --signature, --channel and --draft; runners adding their files to one draft in parallel; `depot
 * release`; every step run twice changes nothing the second time. Mistakes on the command line are
 * exit 2 before any request.
 */

setDefaultTimeout(60_000);

const recorder = recordingLogger("info");
const t: TestApp = await startTestApp({ jobs: "send", log: recorder.log });
const base = t.listen();
const vendor = await createUser(t.ctx, { role: "vendor" });
const token = await tokenFor(t.ctx, vendor);
const product = await createProduct(t.ctx, vendor);
const dir = mkdtempSync(join(tmpdir(), "depot-publish-platforms-"));
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

function fileOf(name: string, bytes: Uint8Array | string): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

const cli = (args: string[]) =>
  depot(args, { DEPOT_URL: base, DEPOT_TOKEN: token, DEPOT_RETRIES: "2", DEPOT_RETRY_DELAY_MS: "200" });

const versionArgs = (name: string) => [
  "--product",
  String(product.id),
  "--version",
  name,
  "--title",
  "T",
  "--changelog",
  "c",
];

async function versionNamed(name: string) {
  const response = await fetch(`${base}/api/products/${product.id}/versions?per_page=100`, {
    headers: bearer(token),
  });
  const page = await readJson(response);
  return page.data.find((version: { version_number: string }) => version.version_number === name);
}

describe("what the command line gets wrong: exit 2, nothing sent", () => {
  test("an unknown platform, arch or channel; --signature with several files or unreadable; a name twice", async () => {
    const exe = fileOf("App-Setup-1.0.0-x64.exe", randomBytes(100));
    const dmg = fileOf("App-1.0.0-arm64.dmg", randomBytes(100));
    const cases: Array<[string[], string]> = [
      [
        [exe, ...versionArgs("1.0.0"), "--platform", "beos"],
        '--platform must be one of windows, darwin, linux, any, got "beos"',
      ],
      [
        [exe, ...versionArgs("1.0.0"), "--arch", "arm64"],
        '--arch must be one of x86_64, aarch64, i686, armv7, universal, any, got "arm64"',
      ],
      [
        [exe, ...versionArgs("1.0.0"), "--channel", "nightly"],
        '--channel must be one of stable, rc, beta, alpha, dev, got "nightly"',
      ],
      [
        [exe, dmg, ...versionArgs("1.0.0"), "--signature", exe],
        "--signature goes with one FILE; with several, give each file's X.sig as a FILE of its own",
      ],
      [
        [exe, ...versionArgs("1.0.0"), "--signature", join(dir, "missing.sig")],
        "cannot read the signature file",
      ],
      [[exe, exe, ...versionArgs("1.0.0")], "App-Setup-1.0.0-x64.exe is given twice"],
      [versionArgs("1.0.0"), "FILE is required"],
    ];
    recorder.lines.length = 0;
    for (const [args, message] of cases) {
      const result = await cli(["publish", ...args]);
      expect({ args, code: result.code }).toEqual({ args, code: 2 });
      expect(result.stderr).toContain(message);
      expect(result.stdout).toBe("");
    }
    const release = await cli(["release", "--product", String(product.id)]);
    expect(release.code).toBe(2);
    expect(release.stderr).toContain("VERSION is required");
    expect(recorder.lines.filter((line) => line.msg === "request")).toEqual([]);
  });

  test("depot release of a version that does not exist: exit 1 saying so", async () => {
    const result = await cli(["release", "9.9.9", "--product", String(product.id)]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`product ${product.id} has no version named "9.9.9"`);
  });
});

describe("a CI matrix: three runners, one draft, one release", () => {
  const windows = randomBytes(3000);
  const mac = randomBytes(2000);
  const macZip = randomBytes(2100);
  const linux = randomBytes(1500);
  const signature = "dW50cnVzdGVkIGNvbW1lbnQ6IHNpZ25hdHVyZSBmcm9tIHRhdXJpIHNlY3JldCBrZXkK";

  const runner = {
    windows: () =>
      cli([
        "publish",
        fileOf("My-App-Setup-2.0.0-x64.exe", windows),
        ...versionArgs("2.0.0"),
        "--draft",
        "--json",
      ]),
    mac: () =>
      cli([
        "publish",
        fileOf("My-App-2.0.0-arm64.dmg", mac),
        fileOf("My-App-2.0.0-arm64-mac.zip", macZip),
        ...versionArgs("2.0.0"),
        "--draft",
        "--json",
      ]),
    linux: () =>
      cli([
        "publish",
        fileOf("my-app_2.0.0_amd64.AppImage", linux),
        "--signature",
        fileOf("my-app_2.0.0_amd64.AppImage.sig", signature),
        ...versionArgs("2.0.0"),
        "--draft",
        "--json",
      ]),
  };

  test("in parallel, every runner's files end up in the one draft with their platform and arch", async () => {
    const results = await Promise.all([runner.windows(), runner.mac(), runner.linux()]);
    const outs = results.map(jsonOf);
    // One runner created the draft, the others added to it.
    expect(outs.map((out) => out.status).sort()).toEqual(["added", "added", "drafted"]);
    const version = await versionNamed("2.0.0");
    expect(version).toMatchObject({ status: "draft", channel: "stable", published_at: null });
    const files = version.artifacts
      .map((a: Record<string, unknown>) => [a.file_name, a.platform, a.arch, a.sha256, a.signature])
      .sort();
    expect(files).toEqual(
      [
        ["My-App-2.0.0-arm64-mac.zip", "darwin", "aarch64", sha256(macZip), null],
        ["My-App-2.0.0-arm64.dmg", "darwin", "aarch64", sha256(mac), null],
        ["My-App-Setup-2.0.0-x64.exe", "windows", "x86_64", sha256(windows), null],
        ["my-app_2.0.0_amd64.AppImage", "linux", "x86_64", sha256(linux), signature],
      ].sort(),
    );
  });

  test("a runner run again sends nothing; depot release publishes the draft once; again is success", async () => {
    recorder.lines.length = 0;
    const again = jsonOf(await runner.mac());
    expect(again).toMatchObject({ status: "already-published", upload_id: null });
    expect(
      recorder.lines.filter((line) => line.msg === "request" && String(line.path).startsWith("/api/uploads")),
    ).toEqual([]);

    const released = jsonOf(await cli(["release", "2.0.0", "--product", String(product.id), "--json"]));
    expect(released).toMatchObject({
      status: "released",
      version: { status: "published", version_number: "2.0.0" },
    });
    expect(released.version.artifacts).toHaveLength(4);
    const twice = await cli(["release", "2.0.0", "--product", String(product.id)]);
    expect(twice.code).toBe(0);
    expect(twice.stdout).toBe(
      `already released: version 2.0.0 (id ${released.version.id}, 4 files, channel stable, rollout 100%)\n`,
    );

    // Released: the runners' files are still success, a new file is refused.
    expect(jsonOf(await runner.windows()).status).toBe("already-published");
    const late = await cli([
      "publish",
      fileOf("My-App-2.0.0-ia32.exe", randomBytes(10)),
      ...versionArgs("2.0.0"),
    ]);
    expect(late.code).toBe(1);
    expect(late.stderr).toContain("version 2.0.0 already exists with another file");
  });

  test("a runner that lost the race to the name (its lookup found nothing, its publish got 422) adds to the winner's draft", async () => {
    const first = jsonOf(
      await cli([
        "publish",
        fileOf("race-1.0-x64.exe", randomBytes(700)),
        ...versionArgs("5.0.0"),
        "--draft",
        "--json",
      ]),
    );
    expect(first.status).toBe("drafted");
    // The second runner looked before the first had published: its first list of versions is empty.
    let hidden = false;
    const lateLookup = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch(request) {
        const url = new URL(request.url);
        if (!hidden && request.method === "GET" && url.pathname === `/api/products/${product.id}/versions`) {
          hidden = true;
          return Response.json({ data: [], links: { next: null }, meta: {} });
        }
        return fetch(`${base}${url.pathname}${url.search}`, {
          method: request.method,
          headers: request.headers,
          body: request.body,
          redirect: "manual",
        });
      },
    });
    try {
      const dmg = randomBytes(800);
      const result = await depot(
        ["publish", fileOf("race-1.0-arm64.dmg", dmg), ...versionArgs("5.0.0"), "--draft", "--json"],
        { DEPOT_URL: `http://127.0.0.1:${lateLookup.port}`, DEPOT_TOKEN: token, DEPOT_RETRIES: "0" },
      );
      const out = jsonOf(result);
      expect(hidden).toBe(true);
      expect(out).toMatchObject({
        status: "added",
        upload_id: null,
        files: [{ file: "race-1.0-arm64.dmg", status: "sent" }],
      });
      expect(out.version.id).toBe(first.version.id);
      const files = out.version.artifacts.map((a: Record<string, unknown>) => [a.file_name, a.sha256]);
      expect(files).toContainEqual(["race-1.0-arm64.dmg", sha256(dmg)]);
      expect(files).toHaveLength(2);
    } finally {
      lateLookup.stop(true);
    }
  });

  test("depot release of a yanked version: exit 1 with the reason, the version stays yanked", async () => {
    const out = jsonOf(
      await cli([
        "publish",
        fileOf("tool-linux-x86_64.tar.gz", randomBytes(500)),
        ...versionArgs("4.0.0"),
        "--json",
      ]),
    );
    expect(out).toMatchObject({ status: "published", version: { status: "published" } });
    const yank = await fetch(`${base}/api/products/${product.id}/versions/${out.version.id}`, {
      method: "PATCH",
      headers: { ...bearer(token), "content-type": "application/json" },
      body: JSON.stringify({ status: "yanked", yank_reason: "corrupts settings" }),
    });
    expect(yank.status).toBe(200);
    const result = await cli(["release", "4.0.0", "--product", String(product.id)]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "depot release: version 4.0.0 is yanked (corrupts settings): not released again",
    );
    expect(await versionNamed("4.0.0")).toMatchObject({ status: "yanked", yank_reason: "corrupts settings" });
  });

  test("--platform/--arch override the names; --channel overrides the version name's; X.sig attaches to X", async () => {
    const bundle = randomBytes(1200);
    const out = jsonOf(
      await cli([
        "publish",
        fileOf("App_x64.app.tar.gz", bundle),
        fileOf("App_x64.app.tar.gz.sig", signature),
        ...versionArgs("3.0.0"),
        "--arch",
        "universal",
        "--channel",
        "beta",
        "--json",
      ]),
    );
    expect(out.status).toBe("published");
    expect(out.version).toMatchObject({ channel: "beta", status: "published" });
    expect(out.version.artifacts).toEqual([
      expect.objectContaining({
        file_name: "App_x64.app.tar.gz",
        platform: "darwin",
        arch: "universal",
        sha256: sha256(bundle),
        signature,
      }),
    ]);
  });
});
