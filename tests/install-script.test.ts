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
import { minisignSignature, pinnedInstallScript, readReleaseKey } from "../scripts/lib/release-signature.ts";
import { readJson, startTestApp, type TestApp } from "./helpers/app.ts";

// scripts/install.sh (POSIX sh, run here by the system's sh) against a listening depot that carries
// other platforms' binaries and the release's signed SHA256SUMS in CLIENT_BINARIES_DIR, and against
// directories laid out as GitHub releases (the files, SHA256SUMS and SHA256SUMS.minisig). The
// "binaries" are random bytes; the release key is a throwaway minisign key (`minisign -G -W`), and
// SHA256SUMS is signed by build:all's own signer (scripts/lib/release-signature.ts). What is checked:
// the right file arrives whole, signed and checked, with minisign or with openssl alone, and nothing
// is installed when the signature or the checksum does not check out.

const SCRIPT = join(import.meta.dir, "../scripts/install.sh");
const root = mkdtempSync(join(tmpdir(), "depot-install-"));
const keys = join(root, "keys");
/** Release directories by what is wrong with them; `good` is also the depot's CLIENT_BINARIES_DIR. */
const releasesDir = join(root, "releases");
const good = join(releasesDir, "good");
const arm = randomBytes(200_000);
const windows = randomBytes(100_000);
const evil = randomBytes(150_000);
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const SUMS = `${sha256(arm)}  depot-linux-arm64\n${"0".repeat(64)}  depot-windows-x64.exe\n`;
const RELEASE_PUB = join(keys, "release.pub");

let t: TestApp;
let bare: TestApp;
let base: string;
let bareBase: string;
let releases: ReturnType<typeof Bun.serve>;
let releasesUrl: string;
let publicKey: string;
let systemPath: string[];

/** `minisign -G -W`: a key pair without a password, `NAME.pub` and `NAME.key` in keys/. */
function makeKeyPair(name: string) {
  const made = Bun.spawnSync(
    ["minisign", "-G", "-W", "-p", join(keys, `${name}.pub`), "-s", join(keys, `${name}.key`)],
    { stdout: "pipe", stderr: "pipe" },
  );
  expect(made.exitCode).toBe(0);
}

/** A release directory: the binaries, SHA256SUMS (`sums`), and what `sign` writes beside them. */
function release(name: string, sums: string, sign: (dir: string) => void = () => {}) {
  const dir = join(releasesDir, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "depot-linux-arm64"), arm);
  writeFileSync(join(dir, "depot-windows-x64.exe"), windows);
  writeFileSync(join(dir, "SHA256SUMS"), sums);
  sign(dir);
  return dir;
}

/** Signed as build:all signs: minisign's legacy Ed25519 over the file, with a trusted comment. */
function signAsBuildAll(keyName: string) {
  return (dir: string) => {
    const key = readReleaseKey(join(keys, `${keyName}.key`));
    const content = readFileSync(join(dir, "SHA256SUMS"));
    writeFileSync(
      join(dir, "SHA256SUMS.minisig"),
      minisignSignature(key, content, "timestamp:1795800000\tfile:SHA256SUMS\tdepot 9.9.9"),
    );
  };
}

/** A PATH of symbolic links to every command on the system's PATH but `without`. */
function pathWithout(label: string, ...without: string[]) {
  const bin = join(root, `bin-${label}`);
  mkdirSync(bin);
  // The first of a name on the PATH wins, as for the shell. A set, not existsSync: a link whose
  // target is missing (Debian's rust-clang without clang) does not "exist" but takes the name.
  const linked = new Set<string>();
  for (const dir of systemPath.filter((entry) => existsSync(entry))) {
    for (const name of readdirSync(dir)) {
      if (without.includes(name) || linked.has(name)) continue;
      linked.add(name);
      symlinkSync(join(dir, name), join(bin, name));
    }
  }
  return bin;
}

beforeAll(async () => {
  mkdirSync(keys);
  makeKeyPair("release");
  makeKeyPair("another");
  publicKey = readFileSync(RELEASE_PUB, "utf8").split("\n")[1] ?? "";
  release("good", SUMS, signAsBuildAll("release"));
  // Signed, then changed: the attacker's binary in place of the release's, its checksum in SHA256SUMS.
  release("tampered", SUMS, (dir) => {
    signAsBuildAll("release")(dir);
    writeFileSync(join(dir, "depot-linux-arm64"), evil);
    writeFileSync(join(dir, "SHA256SUMS"), SUMS.replace(sha256(arm), sha256(evil)));
  });
  release("another-key", SUMS, signAsBuildAll("another"));
  release("unsigned", SUMS);
  // minisign's own default (prehashed, `ED`), as an operator signing by hand makes it.
  release("prehashed", SUMS, (dir) => {
    const signed = Bun.spawnSync(
      ["minisign", "-S", "-s", join(keys, "release.key"), "-m", join(dir, "SHA256SUMS")],
      { stdout: "pipe", stderr: "pipe" },
    );
    expect(signed.exitCode).toBe(0);
  });
  systemPath = (process.env.PATH ?? "/usr/bin:/bin").split(":");
  t = await startTestApp({ env: { CLIENT_BINARIES_DIR: good } });
  base = t.listen();
  bare = await startTestApp();
  bareBase = bare.listen();
  // A release's download address: /<release>/<file> answers that release directory's file.
  releases = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (request) => {
      const path = join(releasesDir, new URL(request.url).pathname.slice(1));
      return existsSync(path) ? new Response(Bun.file(path)) : new Response("not found", { status: 404 });
    },
  });
  releasesUrl = `http://127.0.0.1:${releases.port}`;
}, 60_000);
afterAll(async () => {
  releases.stop(true);
  await t.close();
  await bare.close();
  rmSync(root, { recursive: true, force: true });
});

const lastLine = (text: string) => text.trimEnd().split("\n").at(-1);

async function install(args: string[], path = systemPath.join(":"), script = SCRIPT) {
  const proc = Bun.spawn(["sh", script, ...args], {
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

/** install.sh for `release`'s arm64 binary into a new directory, with the release key given. */
async function installFrom(releaseName: string, extra: string[] = [], path?: string) {
  const dir = join(root, "installed", `${releaseName}-${crypto.randomUUID()}`);
  const args = ["--releases", `${releasesUrl}/${releaseName}`, "--platform", "linux-arm64", "--dir", dir];
  const result = await install([...args, "--insecure", "--public-key", RELEASE_PUB, ...extra], path);
  return { ...result, dir, installed: existsSync(join(dir, "depot")) };
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

describe("GET /client/SHA256SUMS and /client/SHA256SUMS.minisig", () => {
  test("the release's own files from CLIENT_BINARIES_DIR, as text", async () => {
    for (const name of ["SHA256SUMS", "SHA256SUMS.minisig"]) {
      const response = await fetch(`${base}/client/${name}`);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/plain; charset=utf-8");
      expect(response.headers.get("cache-control")).toBe("public, max-age=300");
      expect(await response.text()).toBe(readFileSync(join(good, name), "utf8"));
    }
  }, 30_000);

  test("a depot without them (no CLIENT_BINARIES_DIR) answers 404 saying so", async () => {
    for (const name of ["SHA256SUMS", "SHA256SUMS.minisig"]) {
      const response = await fetch(`${bareBase}/client/${name}`);
      expect(response.status).toBe(404);
      expect(response.headers.get("content-type")).toContain("application/json");
      expect(await readJson(response)).toEqual({ message: `This depot carries no ${name}.` });
    }
  }, 30_000);
});

describe("the release signature build:all writes", () => {
  test("Debian's minisign verifies it with the public key of the key that made it", () => {
    const verified = Bun.spawnSync(["minisign", "-V", "-p", RELEASE_PUB, "-m", join(good, "SHA256SUMS")], {
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(verified.stderr.toString()).toBe("");
    expect(verified.exitCode).toBe(0);
    expect(verified.stdout.toString()).toBe(
      "Signature and comment signature verified\nTrusted comment: timestamp:1795800000\tfile:SHA256SUMS\tdepot 9.9.9\n",
    );
    const key = readReleaseKey(join(keys, "release.key"));
    expect(key.publicKey).toBe(publicKey);
    expect(readFileSync(RELEASE_PUB, "utf8")).toStartWith(
      `untrusted comment: minisign public key ${key.id}\n`,
    );
  });

  test("a password-protected key is refused, saying what to do; so is a file that is no key", () => {
    const sealed = join(keys, "sealed");
    // minisign asks for the password twice, on stdin when it is not a terminal.
    const made = Bun.spawnSync(["minisign", "-G", "-p", `${sealed}.pub`, "-s", `${sealed}.key`], {
      stdin: new TextEncoder().encode("a password\na password\n"),
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(made.exitCode).toBe(0);
    expect(() => readReleaseKey(`${sealed}.key`)).toThrow(
      `${sealed}.key is protected by a password; build:all signs only with a key without one ` +
        "(minisign -C -W -s KEY removes it), or sign dist/SHA256SUMS by hand with minisign -S -l",
    );
    expect(() => readReleaseKey(RELEASE_PUB)).toThrow(`${RELEASE_PUB} is not a minisign secret key`);
    expect(() => readReleaseKey(join(keys, "none.key"))).toThrow(
      `${join(keys, "none.key")} cannot be read (ENOENT)`,
    );
  });

  test("install.sh as the release publishes it pins the key; a script pinning another key is refused", () => {
    const key = readReleaseKey(join(keys, "release.key"));
    const script = readFileSync(SCRIPT, "utf8");
    expect(script).toContain('\nPINNED_PUBLIC_KEY=""\n');
    const pinned = pinnedInstallScript(script, key);
    expect(pinned).toBe(script.replace('PINNED_PUBLIC_KEY=""', `PINNED_PUBLIC_KEY="${publicKey}"`));
    expect(pinnedInstallScript(pinned, key)).toBe(pinned);
    const other = readReleaseKey(join(keys, "another.key"));
    expect(() => pinnedInstallScript(pinned, other)).toThrow(
      `scripts/install.sh pins the public key ${publicKey}, not this key's (${other.publicKey})`,
    );
  });
});

describe("scripts/install.sh", () => {
  test("--server: checks the depot's signed SHA256SUMS, then the binary, and installs it 0755", async () => {
    const dir = join(root, "from-server");
    const result = await install([
      "--server",
      `${base}/`,
      "--insecure",
      "--public-key",
      publicKey,
      "--platform",
      "linux-arm64",
      "--dir",
      dir,
    ]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        `install.sh: fetching depot-linux-arm64 from the depot at ${base}`,
        "install.sh: SHA256SUMS is signed by the release key (minisign; timestamp:1795800000 file:SHA256SUMS depot 9.9.9)",
        `install.sh: installed ${dir}/depot (linux-arm64, sha256 ${sha256(arm)})`,
        `install.sh: ${dir} is not on your PATH`,
        "",
      ].join("\n"),
    );
    expect(readFileSync(join(dir, "depot")).equals(arm)).toBe(true);
    expect(statSync(join(dir, "depot")).mode & 0o777).toBe(0o755);
  }, 30_000);

  test("--server from a depot without the release's signed SHA256SUMS: refused, nothing installed", async () => {
    const dir = join(root, "bare-server");
    const result = await install([
      "--server",
      bareBase,
      "--insecure",
      "--public-key",
      publicKey,
      "--platform",
      "linux-arm64",
      "--dir",
      dir,
    ]);
    expect(result.code).toBe(1);
    // curl's own line first (curl: (22) … 404), then install.sh's.
    expect(lastLine(result.stderr)).toBe(
      `install.sh: ${bareBase}/client/SHA256SUMS could not be fetched (its operator puts the release's SHA256SUMS and SHA256SUMS.minisig in CLIENT_BINARIES_DIR); nothing installed`,
    );
    expect(existsSync(dir)).toBe(false);
  }, 30_000);

  test("plain http without --insecure is refused before anything is fetched, from a depot and from releases", async () => {
    for (const source of [
      ["--server", base],
      ["--releases", `${releasesUrl}/good`],
    ]) {
      const dir = join(root, `http-${source[0]?.slice(2)}`);
      const result = await install([
        ...source,
        "--public-key",
        publicKey,
        "--platform",
        "linux-arm64",
        "--dir",
        dir,
      ]);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe("");
      expect(result.stderr).toBe(
        `install.sh: ${source[1]} is plain http: anyone on the way can change what it sends. Use https, or pass --insecure\n`,
      );
      expect(existsSync(dir)).toBe(false);
    }
  }, 30_000);

  test("--server for a platform the depot does not carry: exit 1, nothing installed", async () => {
    const dir = join(root, "not-carried");
    const result = await install([
      "--server",
      base,
      "--insecure",
      "--public-key",
      publicKey,
      "--platform",
      "darwin-x64",
      "--dir",
      dir,
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("install.sh: SHA256SUMS lists no depot-darwin-x64; nothing installed\n");
    expect(existsSync(join(dir, "depot"))).toBe(false);
  }, 30_000);

  test("--releases: a release's file, its SHA256SUMS signed by the key in a .pub file or given as text", async () => {
    const fromFile = await installFrom("good");
    expect(fromFile.stderr).toBe("");
    expect(fromFile.code).toBe(0);
    expect(readFileSync(join(fromFile.dir, "depot")).equals(arm)).toBe(true);
    const fromText = await installFrom("good", ["--public-key", publicKey]);
    expect(fromText.code).toBe(0);
    expect(fromText.installed).toBe(true);
  }, 30_000);

  test("the install.sh a release publishes needs no --public-key; the repository's refuses without one", async () => {
    const pinned = join(root, "install-pinned.sh");
    writeFileSync(
      pinned,
      pinnedInstallScript(readFileSync(SCRIPT, "utf8"), readReleaseKey(join(keys, "release.key"))),
    );
    const dir = join(root, "pinned");
    const args = [
      "--releases",
      `${releasesUrl}/good`,
      "--insecure",
      "--platform",
      "linux-arm64",
      "--dir",
      dir,
    ];
    const withPin = await install(args, undefined, pinned);
    expect(withPin.stderr).toBe("");
    expect(withPin.code).toBe(0);
    expect(existsSync(join(dir, "depot"))).toBe(true);
    // The pinned key is the one checked: another release key given instead fails the check.
    const otherKey = await install([...args, "--public-key", join(keys, "another.pub")], undefined, pinned);
    expect(otherKey.code).toBe(1);
    const unpinned = await install([...args.slice(0, -1), join(root, "unpinned")]);
    expect(unpinned.code).toBe(1);
    expect(unpinned.stderr).toBe(
      "install.sh: no public key to check the release's signature: this copy of install.sh pins none; use the install.sh published with the release, or pass --public-key KEY|FILE\n",
    );
    expect(existsSync(join(root, "unpinned"))).toBe(false);
  }, 30_000);

  const REFUSED_SIGNATURE = (verifier: string) =>
    `install.sh: the signature of SHA256SUMS does not check out with the release key ${publicKey} (${verifier}): it was changed, or signed by another key; nothing installed\n`;

  for (const [verifier, without] of [
    ["minisign", ["openssl"]],
    ["openssl", ["minisign"]],
  ] as const) {
    describe(`with ${verifier} only (no ${without.join(", ")} on PATH)`, () => {
      let path: string;
      beforeAll(() => {
        path = pathWithout(`${verifier}-only`, ...without);
      });

      test("a release signed by build:all, and one signed by minisign's default (prehashed), install", async () => {
        for (const name of ["good", "prehashed"]) {
          const result = await installFrom(name, [], path);
          expect(result.stderr).toBe("");
          expect(result.code).toBe(0);
          expect(result.stdout).toContain(
            `install.sh: SHA256SUMS is signed by the release key (${verifier}; timestamp:`,
          );
          expect(readFileSync(join(result.dir, "depot")).equals(arm)).toBe(true);
        }
      }, 30_000);

      test("a SHA256SUMS changed after it was signed, or signed by another key: refused, nothing installed", async () => {
        for (const name of ["tampered", "another-key"]) {
          const result = await installFrom(name, [], path);
          expect({ name, code: result.code, stderr: result.stderr }).toEqual({
            name,
            code: 1,
            stderr: REFUSED_SIGNATURE(verifier),
          });
          expect(result.installed).toBe(false);
          expect(existsSync(result.dir)).toBe(false);
        }
      }, 30_000);

      test("a release without SHA256SUMS.minisig: refused, saying it is not signed", async () => {
        const result = await installFrom("unsigned", [], path);
        expect(result.code).toBe(1);
        expect(lastLine(result.stderr)).toBe(
          `install.sh: ${releasesUrl}/unsigned/SHA256SUMS.minisig could not be fetched: the release is not signed (a release made without DEPOT_RELEASE_KEY_FILE is not signed); nothing installed`,
        );
        expect(result.installed).toBe(false);
      }, 30_000);
    });
  }

  test("with neither minisign nor openssl it says what it needs, and installs nothing", async () => {
    const result = await installFrom("good", [], pathWithout("neither", "minisign", "openssl"));
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      "install.sh: needs minisign (https://jedisct1.github.io/minisign/), or openssl 1.1.1 or newer (found: none), to check the release's signature; nothing installed\n",
    );
    expect(result.installed).toBe(false);
  }, 30_000);

  test("a signed SHA256SUMS whose checksum does not match the file installs nothing", async () => {
    const dir = join(root, "mismatch");
    const result = await install([
      "--releases",
      `${releasesUrl}/good`,
      "--insecure",
      "--public-key",
      publicKey,
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
    const withoutCurl = pathWithout("without-curl", "curl");
    const withNeither = pathWithout("without-curl-or-wget", "curl", "wget");
    const key = ["--insecure", "--public-key", publicKey];
    const fromServer = join(root, "wget-server");
    const served = await install(
      ["--server", base, ...key, "--platform", "linux-arm64", "--dir", fromServer],
      withoutCurl,
    );
    expect(served.stderr).toBe("");
    expect(served.code).toBe(0);
    expect(served.stdout).toContain(`installed ${fromServer}/depot (linux-arm64, sha256 ${sha256(arm)})`);
    expect(readFileSync(join(fromServer, "depot")).equals(arm)).toBe(true);
    const released = await installFrom("good", [], withoutCurl);
    expect(released.code).toBe(0);
    expect(readFileSync(join(released.dir, "depot")).equals(arm)).toBe(true);
    const tampered = await installFrom("tampered", [], withoutCurl);
    expect(tampered.code).toBe(1);
    expect(tampered.installed).toBe(false);
    const neither = await install(["--server", base, ...key, "--platform", "linux-arm64"], withNeither);
    expect(neither.code).toBe(1);
    expect(neither.stderr).toBe("install.sh: needs curl or wget\n");
  }, 30_000);

  test("--repo: the first line names the GitHub repository and the release it fetches from", async () => {
    for (const [version, release, url] of [
      ["v1.2.3", "v1.2.3", "https://github.com/acme/depot/releases/download/v1.2.3"],
      [null, "latest", "https://github.com/acme/depot/releases/latest/download"],
    ] as const) {
      const versionArgs = version === null ? [] : ["--version", version];
      const proc = Bun.spawn(
        [
          "sh",
          SCRIPT,
          "--repo",
          "acme/depot",
          ...versionArgs,
          "--public-key",
          publicKey,
          "--platform",
          "linux-x64",
        ],
        // Nothing leaves this machine: every https request goes to a proxy that is not there.
        {
          env: { PATH: systemPath.join(":"), HOME: root, https_proxy: "http://127.0.0.1:9" },
          stdout: "pipe",
        },
      );
      const [stdout, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
      expect(code).toBe(1);
      expect(stdout).toBe(
        `install.sh: fetching depot-linux-x64 from the GitHub repository acme/depot, release ${release} (${url})\n`,
      );
    }
  }, 30_000);

  test("no source, an unknown platform or option, a key that is none: exit 1 with one line", async () => {
    for (const [args, message] of [
      [
        ["--platform", "linux-x64"],
        "pass --server URL (a running depot) or --repo OWNER/NAME (GitHub releases)",
      ],
      [["--server", base, "--platform", "plan9-mips"], "unknown platform plan9-mips"],
      [["--sever", base], "unknown option --sever"],
      [
        ["--server", base, "--insecure", "--public-key", "not-a-key"],
        "--public-key: expected a minisign public key (RW…) or a file holding one",
      ],
      [
        ["--server", "ftp://depot.example", "--public-key", publicKey],
        "ftp://depot.example is not an http(s) address",
      ],
    ] as const) {
      const result = await install([...args]);
      expect(result.code).toBe(1);
      expect(result.stderr).toStartWith(`install.sh: ${message}`);
    }
  }, 30_000);
});
