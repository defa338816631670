import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readJson, startTestApp, type TestApp } from "./helpers/app.ts";

// scripts/install.sh (POSIX sh, run here by the system's sh) against a listening depot that carries
// other platforms' binaries in CLIENT_BINARIES_DIR, and against a directory laid out as a GitHub
// release (the files and SHA256SUMS). The "binaries" are random bytes: what is checked is that the
// right file arrives whole, checked, and nothing is installed when its checksum does not match.

const SCRIPT = join(import.meta.dir, "../scripts/install.sh");
const root = mkdtempSync(join(tmpdir(), "depot-install-"));
const binaries = join(root, "dist");
const arm = randomBytes(200_000);
const windows = randomBytes(100_000);
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

let t: TestApp;
let base: string;
let releases: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  mkdirSync(binaries);
  writeFileSync(join(binaries, "depot-linux-arm64"), arm);
  writeFileSync(join(binaries, "depot-windows-x64.exe"), windows);
  writeFileSync(
    join(binaries, "SHA256SUMS"),
    `${sha256(arm)}  depot-linux-arm64\n${"0".repeat(64)}  depot-windows-x64.exe\n`,
  );
  t = await startTestApp({ env: { CLIENT_BINARIES_DIR: binaries } });
  base = t.listen();
  // A release's download address: /<file> answers the file of dist/.
  releases = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (request) => {
      const path = join(binaries, new URL(request.url).pathname.slice(1));
      return existsSync(path) ? new Response(Bun.file(path)) : new Response("not found", { status: 404 });
    },
  });
}, 60_000);
afterAll(async () => {
  releases.stop(true);
  await t.close();
  rmSync(root, { recursive: true, force: true });
});

async function install(args: string[], path = process.env.PATH ?? "/usr/bin:/bin") {
  const proc = Bun.spawn(["sh", SCRIPT, ...args], {
    env: { PATH: path, HOME: root },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}

describe("GET /client/depot?platform=", () => {
  test("a platform the operator put in CLIENT_BINARIES_DIR: its bytes, platform and SHA-256", async () => {
    const response = await fetch(`${base}/client/depot?platform=linux-arm64`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/octet-stream");
    expect(response.headers.get("content-disposition")).toBe('attachment; filename="depot"');
    expect(response.headers.get("x-depot-platform")).toBe("linux-arm64");
    expect(response.headers.get("x-depot-sha256")).toBe(sha256(arm));
    expect(response.headers.get("x-depot-version")).toMatch(/^\d+\.\d+\.\d+/);
    expect(Buffer.from(await response.arrayBuffer()).equals(arm)).toBe(true);
    const exe = await fetch(`${base}/client/depot?platform=windows-x64`);
    expect(exe.headers.get("content-disposition")).toBe('attachment; filename="depot.exe"');
    expect(exe.headers.get("x-depot-sha256")).toBe(sha256(windows));
  }, 30_000);

  test("a platform it does not carry is 404; an unknown one 422; none, from the sources, 404", async () => {
    const missing = await fetch(`${base}/client/depot?platform=darwin-arm64`);
    expect(missing.status).toBe(404);
    expect(await readJson(missing)).toEqual({ message: "This depot carries no binary for darwin-arm64." });
    const unknown = await fetch(`${base}/client/depot?platform=../../etc/passwd`);
    expect(unknown.status).toBe(422);
    expect(await readJson(unknown)).toEqual({
      message: "The platform must be one of linux-x64, linux-arm64, darwin-x64, darwin-arm64, windows-x64.",
      errors: {
        platform: [
          "The platform must be one of linux-x64, linux-arm64, darwin-x64, darwin-arm64, windows-x64.",
        ],
      },
    });
    const own = await fetch(`${base}/client/depot`);
    expect(own.status).toBe(404);
    expect(await readJson(own)).toEqual({
      message: "The depot client is served only by the compiled depot binary.",
    });
  }, 30_000);
});

describe("scripts/install.sh", () => {
  test("--server: fetches the platform's binary from a running depot, checks it and installs it 0755", async () => {
    const dir = join(root, "from-server");
    const result = await install(["--server", `${base}/`, "--platform", "linux-arm64", "--dir", dir]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      `install.sh: installed ${dir}/depot (linux-arm64, sha256 ${sha256(arm)})`,
    );
    expect(readFileSync(join(dir, "depot")).equals(arm)).toBe(true);
    expect(statSync(join(dir, "depot")).mode & 0o777).toBe(0o755);
  }, 30_000);

  test("--server for a platform the depot does not carry: exit 1, nothing installed", async () => {
    const dir = join(root, "not-carried");
    const result = await install(["--server", base, "--platform", "darwin-x64", "--dir", dir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `install.sh: ${base}/client/depot?platform=darwin-x64 could not be fetched`,
    );
    expect(existsSync(join(dir, "depot"))).toBe(false);
  }, 30_000);

  test("--releases: a release's file checked against its SHA256SUMS", async () => {
    const dir = join(root, "from-release");
    const result = await install([
      "--releases",
      `http://127.0.0.1:${releases.port}`,
      "--platform",
      "linux-arm64",
      "--dir",
      dir,
    ]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(readFileSync(join(dir, "depot")).equals(arm)).toBe(true);
  }, 30_000);

  test("a checksum that does not match installs nothing", async () => {
    const dir = join(root, "mismatch");
    const result = await install([
      "--releases",
      `http://127.0.0.1:${releases.port}`,
      "--platform",
      "windows-x64",
      "--dir",
      dir,
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `install.sh: checksum mismatch for depot-windows-x64.exe: expected ${"0".repeat(64)}, got ${sha256(windows)}; nothing installed\n`,
    );
    expect(existsSync(join(dir, "depot.exe"))).toBe(false);
  }, 30_000);

  test("without curl it fetches with wget, from a depot and from releases; with neither it says so", async () => {
    // Every command of the system's PATH but curl (and, for the last case, wget).
    const withoutCurl = join(root, "bin-without-curl");
    const withNeither = join(root, "bin-with-neither");
    for (const bin of [withoutCurl, withNeither]) mkdirSync(bin);
    const systemPath = (process.env.PATH ?? "/usr/bin:/bin").split(":");
    for (const dir of systemPath.filter((entry) => existsSync(entry))) {
      for (const name of readdirSync(dir)) {
        if (name === "curl") continue;
        if (!existsSync(join(withoutCurl, name))) symlinkSync(join(dir, name), join(withoutCurl, name));
        if (name !== "wget" && !existsSync(join(withNeither, name)))
          symlinkSync(join(dir, name), join(withNeither, name));
      }
    }
    const fromServer = join(root, "wget-server");
    const served = await install(
      ["--server", base, "--platform", "linux-arm64", "--dir", fromServer],
      withoutCurl,
    );
    expect(served.stderr).toBe("");
    expect(served.code).toBe(0);
    expect(served.stdout).toContain(`installed ${fromServer}/depot (linux-arm64, sha256 ${sha256(arm)})`);
    expect(readFileSync(join(fromServer, "depot")).equals(arm)).toBe(true);
    const fromReleases = join(root, "wget-releases");
    const released = await install(
      ["--releases", `http://127.0.0.1:${releases.port}`, "--platform", "linux-arm64", "--dir", fromReleases],
      withoutCurl,
    );
    expect(released.code).toBe(0);
    expect(readFileSync(join(fromReleases, "depot")).equals(arm)).toBe(true);
    const notCarried = await install(["--server", base, "--platform", "darwin-x64"], withoutCurl);
    expect(notCarried.code).toBe(1);
    expect(notCarried.stderr).toContain(`${base}/client/depot?platform=darwin-x64 could not be fetched`);
    const neither = await install(["--server", base, "--platform", "linux-arm64"], withNeither);
    expect(neither.code).toBe(1);
    expect(neither.stderr).toBe("install.sh: needs curl or wget\n");
  }, 30_000);

  test("no source, an unknown platform or option: exit 1 with one line", async () => {
    for (const [args, message] of [
      [
        ["--platform", "linux-x64"],
        "pass --server URL (a running depot) or --repo OWNER/NAME (GitHub releases)",
      ],
      [["--server", base, "--platform", "plan9-mips"], "unknown platform plan9-mips"],
      [["--sever", base], "unknown option --sever"],
    ] as const) {
      const result = await install([...args]);
      expect(result.code).toBe(1);
      expect(result.stderr).toStartWith(`install.sh: ${message}`);
    }
  }, 30_000);
});
