import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileDigests } from "../src/cli-client/tus-upload.ts";
import { uploads, versions } from "../src/db/schema/index.ts";
import { bearer, recordingLogger, startTestApp, type TestApp } from "./helpers/app.ts";
import { randomBytes, sha256 } from "./helpers/bytes.ts";
import { depot, jsonOf, stderrLines } from "./helpers/cli.ts";
import { createBenefit, createOption, createProduct, createUser, tokenFor } from "./helpers/factories.ts";
import { startTcpProxy } from "./helpers/tcp-proxy.ts";

/**
 * `depot publish` as a CI pipeline runs it (docs/reference/cli.md, Client commands): its own process, no terminal,
 * DEPOT_URL and DEPOT_TOKEN from the environment, against a real listening depot. It uploads through
 * the resumable endpoint in chunks, goes on after a dropped connection and after a damaged chunk
 * (460), publishes, and says so on stdout (`--json`) and by its exit code: 0 published or already
 * there, 1 refused, 2 usage (before any request), 3 network gave up.
 */

setDefaultTimeout(30_000);

const MiB = 1024 * 1024;

const recorder = recordingLogger("info");
let t: TestApp;
let base: string;
let token: string;
let product: { id: number };
let benefitId: number;
const dir = mkdtempSync(join(tmpdir(), "depot-publish-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(async () => {
  t = await startTestApp({ jobs: "send", log: recorder.log });
  base = t.listen();
  const vendor = await createUser(t.ctx, { role: "vendor" });
  token = await tokenFor(t.ctx, vendor);
  product = await createProduct(t.ctx, vendor);
  const option = await createOption(t.ctx, product);
  benefitId = (await createBenefit(t.ctx, { id: option.id, productId: product.id })).id;
});
afterAll(() => t.close());
beforeEach(() => {
  recorder.lines.length = 0;
});

/** A file in the test's directory; its path. */
function fileOf(name: string, bytes: Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

const publish = (args: string[], env: Record<string, string> = {}) =>
  depot(["publish", ...args], {
    DEPOT_URL: base,
    DEPOT_TOKEN: token,
    DEPOT_RETRIES: "4",
    DEPOT_RETRY_DELAY_MS: "300",
    ...env,
  });

const versionArgs = (name: string) => [
  "--product",
  String(product.id),
  "--version",
  name,
  "--title",
  "T",
  "--changelog",
  "- c",
];

const requestsTo = (path: RegExp) =>
  recorder.lines.filter((line) => line.msg === "request" && path.test(String(line.path)));

async function downloaded(version: { download_url: string }) {
  const response = await fetch(version.download_url.replace("http://depot.test", base), {
    headers: bearer(token),
  });
  return sha256(await response.arrayBuffer());
}

describe("depot publish", () => {
  const bytes = randomBytes(3 * MiB + 5);
  let path: string;
  beforeAll(() => {
    path = fileOf("app-1.0.0.zip", bytes);
  });

  test("uploads in chunks, publishes, and prints one JSON object; the version downloads as the file", async () => {
    const result = await publish([path, ...versionArgs("1.0.0"), "--chunk-size", String(MiB), "--json"]);
    const out = jsonOf(result);
    expect(out).toMatchObject({
      status: "published",
      upload_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      seconds: expect.any(Number),
      version: {
        version_number: "1.0.0",
        file_name: "app-1.0.0.zip",
        file_size: bytes.length,
        sha256: sha256(bytes),
        changelog: "- c", // a Markdown list item: a value that starts with a dash is still a value
      },
    });
    expect(result.stdout.trim().split("\n")).toHaveLength(1);
    // Four requests of at most 1 MiB, then the publish.
    expect(requestsTo(/^\/api\/uploads\//).map((line) => line.method)).toEqual([
      "PATCH",
      "PATCH",
      "PATCH",
      "PATCH",
    ]);
    expect(await downloaded(out.version)).toBe(sha256(bytes));
    // No terminal: one plain progress line when done, no carriage returns.
    expect(result.stderr).toMatch(/^upload \[#{30}\] 100% 3\.0\/3\.0 MiB/m);
    expect(result.stderr).not.toContain("\r");
  });

  test("run again with the same file: success without sending a byte", async () => {
    const uploadsBefore = (await t.ctx.db.select().from(uploads)).length;
    const out = jsonOf(await publish([path, ...versionArgs("1.0.0"), "--json"]));
    expect(out).toMatchObject({
      status: "already-published",
      upload_id: null,
      version: { sha256: sha256(bytes) },
    });
    expect((await t.ctx.db.select().from(uploads)).length).toBe(uploadsBefore);
    expect(requestsTo(/^\/api\/uploads/)).toEqual([]);
  });

  test("the same name with another file: exit 1 with why, nothing uploaded", async () => {
    const other = fileOf("other.zip", randomBytes(1000));
    const result = await publish([other, ...versionArgs("1.0.0")]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(
      `depot publish: version 1.0.0 already exists with another file (sha256 ${sha256(bytes)})`,
    );
    expect(requestsTo(/^\/api\/uploads/)).toEqual([]);
  });

  test("a benefit's version, the changelog from a file in HTML, a plain line without --json", async () => {
    const changelog = fileOf("CHANGES.html", new TextEncoder().encode("<p>Sources <b>1.0</b></p>"));
    const result = await publish([
      fileOf("sources.zip", randomBytes(2000)),
      ...[
        "--product",
        String(product.id),
        "--benefit",
        String(benefitId),
        "--version",
        "1.0.0",
        "--title",
        "Sources",
      ],
      ...["--changelog-file", changelog, "--format", "html"],
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^published version 1\.0\.0 \(id \d+, 2000 bytes, sha256 [0-9a-f]{64}\) in \d+\.\ds\n$/,
    );
    const [row] = (await t.ctx.db.select().from(versions)).filter((v) => v.purchaseBenefitId === benefitId);
    expect(row).toMatchObject({
      changelog: "<p>Sources <b>1.0</b></p>",
      changelogFormat: "html",
      title: "Sources",
    });
  });
});

describe("depot publish on a bad network", () => {
  test("the connection dropped mid-upload: it asks the server's offset and sends only the rest", async () => {
    const bytes = randomBytes(4 * MiB);
    const proxy = await startTcpProxy({ hostname: "127.0.0.1", port: Number(new URL(base).port) });
    proxy.faultTowardsServer(2 * MiB, "drop");
    try {
      const result = await publish([fileOf("dropped.zip", bytes), ...versionArgs("2.0.0"), "--json"], {
        DEPOT_URL: `http://127.0.0.1:${proxy.port}`,
      });
      const out = jsonOf(result);
      expect(proxy.faulted).toBe(true);
      expect(out.version.sha256).toBe(sha256(bytes));
      expect(result.stderr).toContain(
        "; retrying up to 4 times, waiting about 4.5 s in all (DEPOT_RETRIES=4, DEPOT_RETRY_DELAY_MS=300)\n",
      );
      // It went on from where the server had got to: the second PATCH started past the first MiB.
      const heads = requestsTo(/^\/api\/uploads\//).filter((line) => line.method === "HEAD");
      expect(heads).toHaveLength(1);
      const [, resumed] = requestsTo(/^\/api\/uploads\//).filter((line) => line.method === "PATCH");
      expect(resumed?.status).toBe(204);
      const [row] = (await t.ctx.db.select().from(uploads)).filter((u) => u.id === out.upload_id);
      expect(row?.received).toBe(bytes.length);
    } finally {
      proxy.cut();
    }
  });

  test("a chunk damaged on the way fails its checksum (460) and is sent again", async () => {
    const bytes = randomBytes(2 * MiB);
    const proxy = await startTcpProxy({ hostname: "127.0.0.1", port: Number(new URL(base).port) });
    proxy.faultTowardsServer(MiB, "corrupt");
    try {
      const result = await publish([fileOf("damaged.zip", bytes), ...versionArgs("3.0.0"), "--json"], {
        DEPOT_URL: `http://127.0.0.1:${proxy.port}`,
      });
      const out = jsonOf(result);
      expect(proxy.faulted).toBe(true);
      expect(result.stderr).toContain(
        "answered 460: The checksum of the request body does not match Upload-Checksum",
      );
      expect(requestsTo(/^\/api\/uploads\//).map((line) => line.status)).toContain(460);
      expect(out.version.sha256).toBe(sha256(bytes));
      expect(await downloaded(out.version)).toBe(sha256(bytes));
    } finally {
      proxy.cut();
    }
  });

  test("no server listening: exit 3 after the retries, saying why", async () => {
    const closed = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const port = closed.port;
    closed.stop(true);
    const result = await publish([fileOf("nowhere.zip", randomBytes(10)), ...versionArgs("4.0.0")], {
      DEPOT_URL: `http://127.0.0.1:${port}`,
      DEPOT_RETRIES: "2",
      DEPOT_RETRY_DELAY_MS: "10",
    });
    expect(result.code).toBe(3);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("depot publish: gave up after 3 failed attempts in a row: cannot reach");
  });
});

test("GET /client/depot: from the sources there is no binary to hand out (the smoke test fetches the real one)", async () => {
  const response = await fetch(`${base}/client/depot`);
  expect(response.status).toBe(404);
  expect(await response.json()).toEqual({
    message: "The depot client is served only by the compiled depot binary.",
  });
});

describe("depot publish refused before or by the server", () => {
  test("a wrong token: exit 1 with the server's message, no retries", async () => {
    const result = await publish([fileOf("a.zip", randomBytes(10)), ...versionArgs("5.0.0")], {
      DEPOT_TOKEN: "1|wrong",
    });
    expect(result.code).toBe(1);
    expect(stderrLines(result)).toEqual([
      `depot publish: ${base} refused the token from DEPOT_TOKEN (401: Unauthenticated.): ` +
        "check that it is complete, not revoked or expired, and made on this server",
    ]);
    expect(result.stderr).not.toContain("retry");
  });

  test("usage errors exit 2 before any request", async () => {
    const file = fileOf("b.zip", randomBytes(10));
    const cases: [string[], Record<string, string>, string][] = [
      [
        [join(dir, "missing.zip"), ...versionArgs("6.0.0")],
        {},
        `cannot read ${join(dir, "missing.zip")}: no such file`,
      ],
      [[dir, ...versionArgs("6.0.0")], {}, `${dir} is not a file`],
      [
        [file, "--product", String(product.id), "--title", "T", "--changelog", "c"],
        {},
        "--version is required",
      ],
      [
        [file, ...versionArgs("6.0.0"), "--changelog-file", join(dir, "nope.md")],
        {},
        "give the changelog once",
      ],
      [
        [file, ...versionArgs("6.0.0"), "--format", "rtf"],
        {},
        '--format must be markdown or html, got "rtf"',
      ],
      [[file, ...versionArgs("6.0.0"), "--chunk-size", "10"], {}, "--chunk-size must be a number of bytes"],
      [
        [file, ...versionArgs("6.0.0")],
        { DEPOT_URL: "" },
        "no server: pass --server URL, set DEPOT_URL, or run depot login",
      ],
      [
        [file, ...versionArgs("6.0.0")],
        { DEPOT_TOKEN: "" },
        "no token: pass --token T, set DEPOT_TOKEN, or run depot login",
      ],
    ];
    for (const [args, env, message] of cases) {
      const result = await publish(args, env);
      expect({ args, code: result.code }).toEqual({ args, code: 2 });
      expect(result.stderr).toContain(message);
    }
    expect(recorder.lines.filter((line) => line.msg === "request")).toEqual([]);
  });

  test("a file larger than the server takes: exit 1 with the 413's message", async () => {
    const small = await startTestApp({ env: { MAX_UPLOAD_BYTES: "1000" } });
    try {
      const vendor = await createUser(small.ctx, { role: "vendor" });
      const smallProduct = await createProduct(small.ctx, vendor);
      const result = await publish(
        [
          fileOf("big.zip", randomBytes(2000)),
          "--product",
          String(smallProduct.id),
          "--version",
          "1",
          "--title",
          "T",
          "--changelog",
          "c",
        ],
        { DEPOT_URL: small.listen(), DEPOT_TOKEN: await tokenFor(small.ctx, vendor) },
      );
      expect(result.code).toBe(1);
      expect(result.stderr).toContain("answered 413: The file may not be greater than 1000 bytes.");
    } finally {
      await small.close();
    }
  });
});

describe("the digests of the file to publish", () => {
  test("each chunk's and the whole file's, read while the event loop keeps turning", async () => {
    const chunk = 4 * MiB;
    const bytes = randomBytes(6 * chunk + 7);
    const digests = new FileDigests(fileOf("digests.bin", bytes), bytes.length, chunk);
    // The upload's requests run on the same thread: a timer set now must fire long before the whole
    // file is read (it fired only after, and the upload started only then, before `depot publish`
    // gave the event loop a turn between reads; bench/README.md, issue 14).
    const order: string[] = [];
    await Promise.all([
      digests.whole.then(() => order.push("whole file")),
      Bun.sleep(1).then(() => order.push("timer")),
    ]);
    expect(order).toEqual(["timer", "whole file"]);
    expect(await digests.whole).toBe(sha256(bytes));
    for (let start = 0; start < bytes.length; start += chunk) {
      const end = Math.min(bytes.length, start + chunk);
      const expected = new Bun.CryptoHasher("sha256").update(bytes.subarray(start, end)).digest("base64");
      expect(await digests.range(start, end)).toBe(expected);
    }
    // A range that is not a planned chunk (a resume in the middle of one) is hashed on its own.
    const odd = new Bun.CryptoHasher("sha256").update(bytes.subarray(5, chunk + 9)).digest("base64");
    expect(await digests.range(5, chunk + 9)).toBe(odd);
  });
});
