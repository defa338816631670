import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLicense } from "../src/features/licenses/service.ts";
import { recordingLogger, startTestApp, type TestApp } from "./helpers/app.ts";
import { type CliResult, cliEnv, depot, stderrLines } from "./helpers/cli.ts";
import {
  createBenefit,
  createOption,
  createProduct,
  createPurchase,
  createUser,
  tokenFor,
} from "./helpers/factories.ts";
import { publishedVersion } from "./helpers/publish.ts";
import { startTcpProxy } from "./helpers/tcp-proxy.ts";

/**
 * `depot download` as a pipeline runs it (docs/reference/cli.md, Client commands): a separate process, no terminal,
 * talking to a real listening depot (or to a fake one where depot would have to misbehave), `--json`
 * on stdout and the exit code telling success (0), refusal (1), usage (2) and a network that gave up (3).
 */

const MiB = 1024 * 1024;
/** Deterministic bytes that are not all alike, so a wrong offset shows in the digest. */
const bytesOf = (size: number, seed: number) =>
  Uint8Array.from({ length: size }, (_, i) => (i * 31 + seed) % 251);
const sha256 = (bytes: Uint8Array) => new Bun.CryptoHasher("sha256").update(bytes).digest("hex");

const OLD = bytesOf(MiB + 17, 1);
const LATEST = bytesOf(2 * MiB + 3, 2);
const PREMIUM = bytesOf(4096, 3);

const recorder = recordingLogger("info");
let t: TestApp;
let base: string;
let productId: number;
let benefitId: number;
let holderToken: string;
let holderKey: string;
let strangerToken: string;
let old: { id: number };
let latest: { id: number };
let premium: { id: number };

beforeAll(async () => {
  t = await startTestApp({ jobs: "send", log: recorder.log });
  base = t.listen();
  const owner = await createUser(t.ctx, { role: "vendor" });
  const ownerToken = await tokenFor(t.ctx, owner);
  const product = await createProduct(t.ctx, owner);
  productId = product.id;
  const option = await createOption(t.ctx, product);
  const benefit = await createBenefit(t.ctx, { id: option.id, productId });
  benefitId = benefit.id;
  const holder = await createUser(t.ctx);
  holderToken = await tokenFor(t.ctx, holder);
  holderKey = (
    await createLicense(
      t.ctx,
      { id: 0, creatorId: null },
      { ownerId: String(holder.id), creatorId: String(owner.id), productId: String(productId) },
    )
  ).key;
  await createPurchase(t.ctx, holder, product, { option_id: option.id });
  strangerToken = await tokenFor(t.ctx, await createUser(t.ctx));

  old = await publishedVersion(base, ownerToken, productId, {
    name: "1.0.0",
    bytes: OLD,
    fileName: "plugin-1.0.jar",
  });
  latest = await publishedVersion(base, ownerToken, productId, {
    name: "1.1.0",
    bytes: LATEST,
    fileName: "plugin-1.1.jar",
  });
  // The benefit's own "1.0.0": names are unique per benefit, and --benefit must pick this one.
  premium = await publishedVersion(base, ownerToken, productId, {
    name: "1.0.0",
    bytes: PREMIUM,
    fileName: "sources-1.0.zip",
    benefitId,
  });
}, 60_000);
afterAll(() => t.close());

/** Each test downloads into a directory of its own, the command's working directory. */
const root = mkdtempSync(join(tmpdir(), "depot-download-"));
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(root, "t-"));
  recorder.lines.length = 0;
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Short waits, so retries take milliseconds; a server's settings in the environment must not matter. */
const clientEnv = (env: Record<string, string | undefined> = {}) => ({
  DEPOT_URL: base,
  DEPOT_TOKEN: holderToken,
  DEPOT_RETRIES: "3",
  DEPOT_RETRY_DELAY_MS: "20",
  PORT: "not-a-port",
  DATABASE_URL: "not a database url",
  ...env,
});

const download = (args: string[], env: Record<string, string | undefined> = {}) =>
  depot(["download", "--product", String(productId), ...args], clientEnv(env), dir);

/** The one JSON object a successful `--json` run prints. */
function jsonOf(result: CliResult) {
  expect({ code: result.code, stderr: result.code === 0 ? "" : result.stderr }).toEqual({
    code: 0,
    stderr: "",
  });
  const lines = result.stdout.trim().split("\n");
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0] ?? "");
}

/** The request lines depot logged for `path` (the log line is written as the answer goes out). */
async function requestsTo(suffix: string) {
  await Bun.sleep(50);
  return recorder.lines
    .filter((line) => line.msg === "request" && String(line.path).endsWith(suffix))
    .map((line) => ({ method: line.method, status: line.status, bytes: line.bytes }));
}

const fileIn = (name: string) => new Uint8Array(readFileSync(join(dir, name)));

describe("downloading a version", () => {
  test("latest, into the current directory under the server's file name, verified", async () => {
    const result = await download(["--json"]);
    expect(jsonOf(result)).toEqual({
      path: join(dir, "plugin-1.1.jar"),
      file_name: "plugin-1.1.jar",
      size: LATEST.byteLength,
      sha256: sha256(LATEST),
      product_id: productId,
      version: "1.1.0",
      version_id: latest.id,
      benefit_id: null,
      resumed_from: 0,
    });
    expect(sha256(fileIn("plugin-1.1.jar"))).toBe(sha256(LATEST));
    // Nothing else was written: no .part left, no data directory of a server.
    expect(readdirSync(dir)).toEqual(["plugin-1.1.jar"]);
    // No terminal: plain lines, no carriage returns.
    expect(result.stderr).not.toContain("\r");
    expect(stderrLines(result)[0]).toBe(
      `downloading version 1.1.0 (${LATEST.byteLength} bytes) to ${join(dir, "plugin-1.1.jar")}`,
    );
    expect(await requestsTo(`/versions/${latest.id}/download`)).toEqual([
      { method: "HEAD", status: 200, bytes: 0 },
      { method: "GET", status: 200, bytes: LATEST.byteLength },
    ]);
  });

  test("by name, to -o FILE, with a readable line instead of JSON", async () => {
    mkdirSync(join(dir, "out"));
    const result = await download(["--version", "1.0.0", "-o", "out/named.jar"]);
    expect(result.code).toBe(0);
    const path = join(dir, "out/named.jar");
    expect(result.stdout).toBe(
      `Saved ${path} (${OLD.byteLength} bytes, sha256 ${sha256(OLD)}, version 1.0.0).\n`,
    );
    expect(sha256(fileIn("out/named.jar"))).toBe(sha256(OLD));
    expect(readdirSync(join(dir, "out"))).toEqual(["named.jar"]);
  });

  test("-o DIR saves under the server's file name; --benefit picks the benefit's version of that name", async () => {
    mkdirSync(join(dir, "releases"));
    const named = jsonOf(
      await download(["--benefit", String(benefitId), "--version", "1.0.0", "-o", "releases", "--json"]),
    );
    expect(named).toMatchObject({
      path: join(dir, "releases", "sources-1.0.zip"),
      version: "1.0.0",
      version_id: premium.id,
      benefit_id: benefitId,
      sha256: sha256(PREMIUM),
    });
    const newest = jsonOf(
      await download(["--benefit", String(benefitId), "--json", "-o", "releases/latest.zip"]),
    );
    expect(newest).toMatchObject({ version_id: premium.id, sha256: sha256(PREMIUM) });
    expect(readdirSync(join(dir, "releases")).sort()).toEqual(["latest.zip", "sources-1.0.zip"]);
  });

  test("with a license key and --version-id (the key cannot list versions)", async () => {
    const result = await download(["--license-key", holderKey, "--version-id", String(old.id), "--json"], {
      DEPOT_TOKEN: undefined,
    });
    expect(jsonOf(result)).toMatchObject({
      path: join(dir, "plugin-1.0.jar"),
      sha256: sha256(OLD),
      version: null,
      version_id: old.id,
    });
    expect(sha256(fileIn("plugin-1.0.jar"))).toBe(sha256(OLD));
  });

  test("on a terminal a progress bar is drawn on stderr, then the result as a readable line", async () => {
    // script(1) gives the command a pseudo-terminal, as an operator's shell would; spawned without
    // blocking, since the server it downloads from runs in this process.
    const main = join(import.meta.dir, "../src/main.ts");
    const command = `${process.execPath} ${main} download --product ${productId} --version 1.0.0`;
    const proc = Bun.spawn(["script", "-qec", command, "/dev/null"], {
      env: cliEnv(clientEnv()),
      cwd: dir,
      stdout: "pipe",
    });
    const [output, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    expect(code).toBe(0);
    expect(output).toMatch(/\rdownload \[#{30}\] 100% 1\.0\/1\.0 MiB\r?\n/);
    expect(output).toContain(`Saved ${join(dir, "plugin-1.0.jar")} (`);
  });
});

describe("resuming", () => {
  test("a .part with the first half: the server is asked for the rest only (206), the whole file verifies", async () => {
    const half = Math.floor(LATEST.byteLength / 2);
    writeFileSync(join(dir, "plugin-1.1.jar.part"), LATEST.subarray(0, half));
    const result = await download(["--json"]);
    expect(jsonOf(result)).toMatchObject({
      resumed_from: half,
      size: LATEST.byteLength,
      sha256: sha256(LATEST),
    });
    expect(result.stderr).toContain(
      `resuming ${join(dir, "plugin-1.1.jar.part")} at ${half} of ${LATEST.byteLength} bytes`,
    );
    expect(sha256(fileIn("plugin-1.1.jar"))).toBe(sha256(LATEST));
    expect(readdirSync(dir)).toEqual(["plugin-1.1.jar"]);
    expect(await requestsTo(`/versions/${latest.id}/download`)).toEqual([
      { method: "HEAD", status: 200, bytes: 0 },
      { method: "GET", status: 206, bytes: LATEST.byteLength - half },
    ]);
  });

  test("a .part longer than the file cannot be its start: downloaded from the beginning", async () => {
    writeFileSync(join(dir, "plugin-1.0.jar"), "an older file, replaced");
    writeFileSync(join(dir, "plugin-1.0.jar.part"), bytesOf(OLD.byteLength + 10, 9));
    const result = await download(["--version", "1.0.0", "--force", "--json"]);
    expect(jsonOf(result)).toMatchObject({ resumed_from: 0, sha256: sha256(OLD) });
    expect(sha256(fileIn("plugin-1.0.jar"))).toBe(sha256(OLD));
  });

  test("a connection cut mid-download, then refused for a while: retried with backoff, resumed, verified", async () => {
    const port = Number(new URL(base).port);
    const proxy = await startTcpProxy({ hostname: "127.0.0.1", port });
    try {
      const cut = proxy.cutAfter(MiB);
      const running = download(["--json"], {
        DEPOT_URL: `http://127.0.0.1:${proxy.port}`,
        DEPOT_RETRIES: "8",
        DEPOT_RETRY_DELAY_MS: "50",
      });
      await cut;
      await Bun.sleep(300);
      proxy.restore();
      const result = await running;
      const downloaded = jsonOf(result);
      expect(downloaded).toMatchObject({ size: LATEST.byteLength, sha256: sha256(LATEST), resumed_from: 0 });
      expect(sha256(fileIn("plugin-1.1.jar"))).toBe(sha256(LATEST));
      expect(result.stderr).toMatch(/the (download broke off|connection closed) at \d+ /);
      expect(result.stderr).toContain("; retrying up to 8 times, waiting about 12.8 s in all");
      // While the proxy was cut the server could not be reached at all: those attempts were retried too.
      expect(result.stderr).toContain(`cannot reach http://127.0.0.1:${proxy.port}/`);
      const gets = (await requestsTo(`/versions/${latest.id}/download`)).filter((r) => r.method === "GET");
      expect(gets[0]).toEqual({ method: "GET", status: 200, bytes: LATEST.byteLength });
      // The retry asked only for what had not arrived.
      const resumed = gets.at(-1);
      expect(resumed?.status).toBe(206);
      expect(resumed?.bytes).toBeGreaterThan(0);
      expect(resumed?.bytes).toBeLessThan(LATEST.byteLength - MiB / 2);
    } finally {
      proxy.cut();
    }
  });
});

describe("refusals exit 1 with the server's message, without retrying", () => {
  test("a wrong token: one request, the server's 401 message, nothing written", async () => {
    const result = await download(["--json"], { DEPOT_TOKEN: "1|not-a-token" });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(stderrLines(result)).toEqual([
      `depot download: ${base} refused the token from DEPOT_TOKEN (401: Unauthenticated.): ` +
        "check that it is complete, not revoked or expired, and made on this server",
    ]);
    expect(await requestsTo("/versions/latest")).toEqual([
      { method: "GET", status: 401, bytes: expect.any(Number) },
    ]);
    expect(readdirSync(dir)).toEqual([]);
  });

  test("a caller who may not download: the download's 403 message, no .part", async () => {
    const result = await download(["--version-id", String(old.id)], { DEPOT_TOKEN: strangerToken });
    expect(result.code).toBe(1);
    expect(stderrLines(result)).toEqual([
      `depot download: ${base}/api/products/${productId}/versions/${old.id}/download answered 403: This action is unauthorized.`,
    ]);
    // The HEAD's 403 has no body: one GET of a byte hears the message.
    expect(await requestsTo("/download")).toEqual([
      { method: "HEAD", status: 403, bytes: 0 },
      { method: "GET", status: 403, bytes: expect.any(Number) },
    ]);
    expect(readdirSync(dir)).toEqual([]);
  });

  test("an unknown version name", async () => {
    const result = await download(["--version", "9.9.9"]);
    expect(result.code).toBe(1);
    expect(stderrLines(result)).toEqual([
      `depot download: product ${productId} has no version named "9.9.9"`,
    ]);
  });
});

describe("against a fake depot: what depot never does, and a bucket behind a redirect", () => {
  /**
   * Answers like depot for version 1 of product 1 (latest, HEAD, GET), but with `reprDigest` as the
   * Repr-Digest, and 503 to the first `failures` GETs of the file.
   */
  function fakeDepot(
    content: Uint8Array,
    options: { reprDigest: string; failures?: number; redirectTo?: string },
  ) {
    let failures = options.failures ?? 0;
    const seen: string[] = [];
    const server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch(request) {
        const url = new URL(request.url);
        seen.push(`${request.method} ${url.pathname} ${request.headers.get("range") ?? ""}`.trim());
        if (url.pathname === "/api/products/1/versions/latest") {
          return Response.json({
            data: {
              id: 1,
              version_number: "1.0.0",
              file_name: "fake.bin",
              sha256: sha256(content),
              purchase_benefit_id: null,
            },
          });
        }
        if (url.pathname !== "/api/products/1/versions/1/download")
          return new Response(null, { status: 404 });
        if (request.method === "GET" && failures-- > 0)
          return Response.json({ message: "Not ready." }, { status: 503 });
        if (request.method === "GET" && options.redirectTo) {
          return new Response(null, { status: 302, headers: { location: options.redirectTo } });
        }
        return new Response(request.method === "HEAD" ? null : content, {
          headers: {
            "content-length": String(content.byteLength),
            "content-disposition": 'attachment; filename="fake.bin"',
            etag: `"${sha256(content)}"`,
            "repr-digest": options.reprDigest,
          },
        });
      },
    });
    return { url: `http://127.0.0.1:${server.port}`, seen, stop: () => server.stop(true) };
  }
  const digestOf = (bytes: Uint8Array) => `sha-256=:${Buffer.from(sha256(bytes), "hex").toString("base64")}:`;

  test("a Repr-Digest the bytes do not match: the .part is deleted, nothing saved, exit 1", async () => {
    const content = bytesOf(100_000, 4);
    const wrong = bytesOf(10, 5);
    const fake = fakeDepot(content, { reprDigest: digestOf(wrong) });
    try {
      const result = await depot(
        ["download", "--product", "1", "--json"],
        clientEnv({ DEPOT_URL: fake.url }),
        dir,
      );
      expect(result.code).toBe(1);
      expect(result.stdout).toBe("");
      expect(stderrLines(result).at(-1)).toBe(
        `depot download: the downloaded file's SHA-256 is ${sha256(content)}, but the server's Repr-Digest says ` +
          `${sha256(wrong)}: deleted ${join(dir, "fake.bin.part")}; run the command again to download it from the start`,
      );
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      fake.stop();
    }
  });

  /** A bucket behind a presigned URL: serves `content` (one `bytes=N-` range) and records what it was sent. */
  function fakeBucket(content: Uint8Array) {
    const received: Record<string, string>[] = [];
    const server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch(request) {
        received.push(Object.fromEntries(request.headers));
        const start = Number(/^bytes=(\d+)-$/.exec(request.headers.get("range") ?? "")?.[1] ?? 0);
        const headers = { "content-range": `bytes ${start}-${content.byteLength - 1}/${content.byteLength}` };
        return start > 0
          ? new Response(content.subarray(start), { status: 206, headers })
          : new Response(content);
      },
    });
    return {
      url: `http://127.0.0.1:${server.port}/bucket/key?X-Signature=s`,
      received,
      stop: () => server.stop(true),
    };
  }

  test("a redirect to a bucket is followed without the credential or depot's validators, and resumed", async () => {
    const content = bytesOf(200_000, 7);
    const bucket = fakeBucket(content);
    const fake = fakeDepot(content, { reprDigest: digestOf(content), redirectTo: bucket.url });
    try {
      writeFileSync(join(dir, "fake.bin.part"), content.subarray(0, 50_000));
      const result = await depot(
        ["download", "--product", "1", "--json"],
        clientEnv({ DEPOT_URL: fake.url, DEPOT_TOKEN: "secret-token" }),
        dir,
      );
      expect(jsonOf(result)).toMatchObject({ sha256: sha256(content), resumed_from: 50_000 });
      expect(bucket.received).toHaveLength(1);
      expect(bucket.received[0]?.range).toBe("bytes=50000-");
      const serverOnly = ["authorization", "x-license-key", "if-range"];
      expect(Object.keys(bucket.received[0] ?? {}).filter((name) => serverOnly.includes(name))).toEqual([]);
      expect(JSON.stringify(bucket.received)).not.toContain("secret-token");
      expect(fake.seen.at(-1)).toBe("GET /api/products/1/versions/1/download bytes=50000-");
    } finally {
      fake.stop();
      bucket.stop();
    }
  });

  test("5xx answers are retried with backoff, then the download completes", async () => {
    const content = bytesOf(50_000, 6);
    const fake = fakeDepot(content, { reprDigest: digestOf(content), failures: 2 });
    try {
      const result = await depot(
        ["download", "--product", "1", "--json"],
        clientEnv({ DEPOT_URL: fake.url }),
        dir,
      );
      expect(jsonOf(result)).toMatchObject({ path: join(dir, "fake.bin"), sha256: sha256(content) });
      const retries = stderrLines(result).filter((line) => line.includes("answered 503: Not ready.; retry"));
      expect(retries).toHaveLength(2);
      expect(fake.seen).toEqual([
        "GET /api/products/1/versions/latest",
        "HEAD /api/products/1/versions/1/download",
        "GET /api/products/1/versions/1/download",
        "GET /api/products/1/versions/1/download",
        "GET /api/products/1/versions/1/download",
      ]);
    } finally {
      fake.stop();
    }
  });
});

describe("usage errors exit 2 before any request", () => {
  test.each([
    [
      "no server",
      [],
      { DEPOT_URL: undefined },
      "no server: pass --server URL, set DEPOT_URL, or run depot login",
    ],
    [
      "a server that is not http(s)",
      ["--server", "ftp://depot"],
      {},
      'the server must be an http(s) base URL such as https://depot.example.com, got "ftp://depot"',
    ],
    [
      "no credential",
      [],
      { DEPOT_TOKEN: undefined },
      "no credential: pass --token T, set DEPOT_TOKEN, or pass --license-key K",
    ],
    [
      "a token and a license key",
      ["--token", "t", "--license-key", "k"],
      {},
      "give --token or --license-key, not both",
    ],
    [
      "a license key without --version-id",
      ["--license-key", "k"],
      { DEPOT_TOKEN: undefined },
      "--license-key needs --version-id: the server lists versions only for a token",
    ],
    [
      "--version-id with --version",
      ["--version-id", "1", "--version", "1.0.0"],
      {},
      "--version-id names one version: give it without --version and --benefit",
    ],
    [
      "a benefit that is not an id",
      ["--benefit", "premium"],
      {},
      '--benefit must be an id (a positive whole number), got "premium"',
    ],
    ["an unknown option", ["--verbose"], {}, "unknown option --verbose"],
    ["a mistyped option", ["--versoin", "1.0.0"], {}, "unknown option --versoin (did you mean --version?)"],
    ["an unknown short option", ["-x"], {}, "unknown option -x"],
    [
      "a mistyped option with its value",
      ["--prodcut=1"],
      {},
      "unknown option --prodcut (did you mean --product?)",
    ],
  ])("%s", async (_, args, env, message) => {
    const result = await download(args, env);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(stderrLines(result)[0]).toBe(`depot download: ${message}`);
    expect(stderrLines(result)[1]).toStartWith("usage: depot download --product ID");
    expect(await requestsTo("")).toEqual([]);
  });

  test("a missing output directory, and a bad retry setting, say so without the usage line", async () => {
    const missing = await download(["-o", "nowhere/file.jar"]);
    expect({ code: missing.code, stderr: missing.stderr }).toEqual({
      code: 2,
      stderr: `depot download: cannot save to ${join(dir, "nowhere")}: no such directory\n`,
    });
    const retries = await download([], { DEPOT_RETRIES: "many" });
    expect({ code: retries.code, stderr: retries.stderr }).toEqual({
      code: 2,
      stderr: 'depot download: DEPOT_RETRIES must be a whole number from 0 to 100, got "many"\n',
    });
    expect(await requestsTo("")).toEqual([]);
  });
});

describe("a network that gives up exits 3", () => {
  test("nothing listening: the first failure says what is retried and for how long, each retry is reported, then the last error", async () => {
    const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const closed = `http://127.0.0.1:${listener.port}`;
    listener.stop(true);
    const result = await download(["--json"], { DEPOT_URL: closed, DEPOT_RETRIES: "2" });
    expect(result.code).toBe(3);
    expect(result.stdout).toBe("");
    const lines = stderrLines(result);
    const cannotReach = `cannot reach ${closed}/api/products/${productId}/versions/latest: connection refused`;
    expect(lines).toHaveLength(3);
    // Waits of 20 ms, then 40 ms (DEPOT_RETRY_DELAY_MS=20 in clientEnv).
    expect(lines[0]).toBe(
      `${cannotReach}; retrying up to 2 times, waiting about 60 ms in all (DEPOT_RETRIES=2, DEPOT_RETRY_DELAY_MS=20)`,
    );
    expect(lines[1]).toMatch(new RegExp(`^${RegExp.escape(cannotReach)}; retry 2 of 2 in \\d+ ms$`));
    expect(lines[2]).toBe(`depot download: gave up after 3 failed attempts in a row: ${cannotReach}`);
    expect(existsSync(join(dir, "plugin-1.1.jar.part"))).toBe(false);
  });

  test("with the default retries the first failure says they take about 31 s", async () => {
    const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const closed = `http://127.0.0.1:${listener.port}`;
    listener.stop(true);
    // The default policy, cut short: the process is stopped once it has said what it will do.
    const proc = Bun.spawn(
      [process.execPath, join(import.meta.dir, "../src/main.ts"), "download", "--product", "1"],
      {
        env: cliEnv(
          clientEnv({ DEPOT_URL: closed, DEPOT_RETRIES: undefined, DEPOT_RETRY_DELAY_MS: undefined }),
        ),
        cwd: dir,
        stderr: "pipe",
        stdout: "ignore",
      },
    );
    const reader = proc.stderr.getReader();
    let stderr = "";
    while (!stderr.includes("\n")) {
      const { done, value } = await reader.read();
      if (done) break;
      stderr += new TextDecoder().decode(value);
    }
    proc.kill();
    await proc.exited;
    expect(stderr.split("\n")[0]).toBe(
      `cannot reach ${closed}/api/products/1/versions/latest: connection refused; ` +
        "retrying up to 5 times, waiting about 31 s in all (DEPOT_RETRIES=5, DEPOT_RETRY_DELAY_MS=1000)",
    );
  });
});
