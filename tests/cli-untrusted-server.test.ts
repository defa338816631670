import { afterAll, afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CliResult, depot, stderrLines } from "./helpers/cli.ts";

/**
 * What a server that is not depot, or a depot that misbehaves, cannot make the client commands do
 * (docs/reference/cli.md, Client commands): name the file it is saved under, replace a file, fill the disk or the
 * memory, or keep `depot versions` paging for ever. Each test runs the real CLI process against a
 * small fake server that answers what the case needs.
 */

const MiB = 1024 * 1024;
const sha256 = (bytes: Uint8Array) => new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
const reprDigest = (bytes: Uint8Array) => `sha-256=:${Buffer.from(sha256(bytes), "hex").toString("base64")}:`;
const CONTENT = new TextEncoder().encode("the release's bytes\n");

/** A server on 127.0.0.1 answering with `answer`; it records each request as `METHOD /path?query`. */
function fakeServer(answer: (request: Request, url: URL) => Response | Promise<Response>) {
  const seen: string[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      const url = new URL(request.url);
      seen.push(`${request.method} ${url.pathname}${url.search}`);
      return answer(request, url);
    },
  });
  servers.push(server);
  return { url: `http://127.0.0.1:${server.port}`, seen };
}
const servers: { stop(force: boolean): unknown }[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.stop(true);
});

/** Version 1 of product 1, as depot's API sends it, with the fields the case overrides. */
const versionJson = (fields: Record<string, unknown> = {}) => ({
  id: 1,
  version_number: "1.0.0",
  file_name: "app.bin",
  sha256: sha256(CONTENT),
  purchase_benefit_id: null,
  ...fields,
});

/**
 * A depot serving version 1 of product 1 (`latest`, by id, and its download) whose file is
 * `CONTENT`, with the API's `file_name` and the download's Content-Disposition as given.
 */
function fakeDepot(options: { fileName?: string; disposition?: string } = {}) {
  return fakeServer((request, url) => {
    if (url.pathname === "/api/products/1/versions/latest" || url.pathname === "/api/products/1/versions/1") {
      return Response.json({ data: versionJson({ file_name: options.fileName ?? "app.bin" }) });
    }
    if (url.pathname !== "/api/products/1/versions/1/download") return new Response(null, { status: 404 });
    return new Response(request.method === "HEAD" ? null : CONTENT, {
      headers: {
        "content-length": String(CONTENT.byteLength),
        "content-disposition": options.disposition ?? 'attachment; filename="app.bin"',
        "repr-digest": reprDigest(CONTENT),
      },
    });
  });
}

const root = mkdtempSync(join(tmpdir(), "depot-untrusted-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
/** Each test's working directory. */
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(root, "t-"));
});

const run = (server: { url: string }, args: string[], env: Record<string, string> = {}) =>
  depot(
    args,
    { DEPOT_URL: server.url, DEPOT_TOKEN: "t", DEPOT_RETRIES: "2", DEPOT_RETRY_DELAY_MS: "10", ...env },
    dir,
  );
const download = (server: { url: string }, args: string[] = []) =>
  run(server, ["download", "--product", "1", ...args]);

const read = (name: string) => readFileSync(join(dir, name), "utf8");
const failure = (result: CliResult) => ({
  code: result.code,
  stdout: result.stdout,
  stderr: stderrLines(result),
});

describe("depot download: the server does not choose where the file goes", () => {
  test("the API's file_name names the file; a Content-Disposition naming .bashrc is not followed", async () => {
    writeFileSync(join(dir, ".bashrc"), "mine\n");
    const server = fakeDepot({ disposition: "attachment; filename*=UTF-8''.bashrc" });
    const result = await download(server, ["--json"]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ path: join(dir, "app.bin"), file_name: "app.bin" });
    expect(read("app.bin")).toBe(new TextDecoder().decode(CONTENT));
    expect(read(".bashrc")).toBe("mine\n");
    expect(readdirSync(dir).sort()).toEqual([".bashrc", "app.bin"]);
  });

  test("a file name that starts with a dot is refused (exit 1) before a byte is written", async () => {
    writeFileSync(join(dir, ".bashrc"), "mine\n");
    const server = fakeDepot({ fileName: ".bashrc", disposition: "attachment; filename*=UTF-8''.bashrc" });
    expect(failure(await download(server))).toEqual({
      code: 1,
      stdout: "",
      stderr: [
        'depot download: the server names the file ".bashrc"; a name that starts with a dot is not saved ' +
          "(it could be a hidden settings file): choose the name with -o FILE",
      ],
    });
    expect(read(".bashrc")).toBe("mine\n");
    expect(readdirSync(dir)).toEqual([".bashrc"]);
    expect(server.seen.filter((line) => line.startsWith("GET /api/products/1/versions/1/download"))).toEqual(
      [],
    );
  });

  test("with a license key (no API to ask) the Content-Disposition names the file, and a dot name is refused", async () => {
    writeFileSync(join(dir, ".profile"), "mine\n");
    const server = fakeDepot({ disposition: "attachment; filename*=UTF-8''.profile" });
    const result = await run(
      server,
      ["download", "--product", "1", "--version-id", "1", "--license-key", "k"],
      {
        DEPOT_TOKEN: "",
      },
    );
    expect(failure(result)).toEqual({
      code: 1,
      stdout: "",
      stderr: [
        'depot download: the server names the file ".profile"; a name that starts with a dot is not saved ' +
          "(it could be a hidden settings file): choose the name with -o FILE",
      ],
    });
    expect(read(".profile")).toBe("mine\n");
    expect(readdirSync(dir)).toEqual([".profile"]);
  });

  test("-o FILE chooses the name whatever the server says, and may replace that file", async () => {
    writeFileSync(join(dir, "settings"), "old\n");
    const server = fakeDepot({ fileName: ".bashrc", disposition: "attachment; filename*=UTF-8''.bashrc" });
    const result = await download(server, ["-o", "settings", "--json"]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ path: join(dir, "settings"), sha256: sha256(CONTENT) });
    expect(read("settings")).toBe(new TextDecoder().decode(CONTENT));
    expect(readdirSync(dir)).toEqual(["settings"]);
  });

  test("an existing file under the server's name is not replaced without --force (exit 2), nothing downloaded", async () => {
    writeFileSync(join(dir, "app.bin"), "mine\n");
    mkdirSync(join(dir, "out"));
    writeFileSync(join(dir, "out", "app.bin"), "mine too\n");
    const server = fakeDepot();
    for (const [args, path] of [
      [[], join(dir, "app.bin")],
      [["-o", "out"], join(dir, "out", "app.bin")],
    ] as const) {
      expect(failure(await download(server, [...args]))).toEqual({
        code: 2,
        stdout: "",
        stderr: [
          `depot download: ${path} already exists: pass --force to replace it, or -o FILE to save it elsewhere`,
        ],
      });
    }
    expect(read("app.bin")).toBe("mine\n");
    expect(read("out/app.bin")).toBe("mine too\n");
    expect(readdirSync(dir).sort()).toEqual(["app.bin", "out"]);
    expect(server.seen.filter((line) => line.startsWith("GET /api/products/1/versions/1/download"))).toEqual(
      [],
    );

    const forced = await download(server, ["--force", "--json"]);
    expect(forced.code).toBe(0);
    expect(JSON.parse(forced.stdout)).toMatchObject({ path: join(dir, "app.bin"), sha256: sha256(CONTENT) });
    expect(read("app.bin")).toBe(new TextDecoder().decode(CONTENT));
  });

  test("a file that appears during the download is not replaced either: the verified .part waits for --force", async () => {
    const depotServer = fakeDepot();
    // Another program saves a file of that name while the bytes are on their way.
    const server = fakeServer((request, url) => {
      if (request.method === "GET" && url.pathname.endsWith("/download"))
        writeFileSync(join(dir, "app.bin"), "mine\n");
      return fetch(`${depotServer.url}${url.pathname}`, { method: request.method });
    });
    expect(failure(await download(server))).toEqual({
      code: 2,
      stdout: "",
      stderr: [
        `downloading version 1.0.0 (${CONTENT.byteLength} bytes) to ${join(dir, "app.bin")}`,
        "download [##############################] 100% 0.0/0.0 MiB",
        `depot download: ${join(dir, "app.bin")} already exists: pass --force to replace it, or -o FILE to save it elsewhere`,
      ],
    });
    expect(read("app.bin")).toBe("mine\n");
    expect(read("app.bin.part")).toBe(new TextDecoder().decode(CONTENT));

    const forced = await download(depotServer, ["--force", "--json"]);
    expect(forced.code).toBe(0);
    expect(JSON.parse(forced.stdout)).toMatchObject({
      resumed_from: CONTENT.byteLength,
      sha256: sha256(CONTENT),
    });
    expect(readdirSync(dir)).toEqual(["app.bin"]);
    expect(read("app.bin")).toBe(new TextDecoder().decode(CONTENT));
  });
});

/**
 * A body of `total` bytes that is produced only as it is read (Bun.serve pulls as the socket drains),
 * so `sent()` tells how much of it the client took before it stopped reading.
 */
function endlessBody(total: number, fill = 0x61) {
  let sent = 0;
  const chunk = new Uint8Array(64 * 1024).fill(fill);
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= total) return controller.close();
      sent += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  return { stream, sent: () => sent };
}

describe("depot download: a body longer than announced", () => {
  test("announced 10 bytes, sent 200 MiB: stopped at once, the .part deleted, exit 1", async () => {
    const ten = new TextEncoder().encode("0123456789");
    const body = endlessBody(200 * MiB);
    const server = fakeServer((request, url) => {
      if (url.pathname === "/api/products/1/versions/latest") {
        return Response.json({ data: versionJson({ sha256: sha256(ten) }) });
      }
      if (request.method === "HEAD") return new Response(null, { headers: { "content-length": "10" } });
      return new Response(body.stream);
    });
    const result = await download(server);
    expect(failure(result)).toEqual({
      code: 1,
      stdout: "",
      stderr: [
        `downloading version 1.0.0 (10 bytes) to ${join(dir, "app.bin")}`,
        `depot download: ${server.url}/api/products/1/versions/1/download sent more than the 10 bytes ` +
          `it announced: stopped, and deleted ${join(dir, "app.bin.part")}`,
      ],
    });
    expect(readdirSync(dir)).toEqual([]);
    // What the server got to send before the client hung up: socket buffers, not 200 MiB.
    expect(body.sent()).toBeLessThan(32 * MiB);
  });
});

describe("bodies read into memory are bounded", () => {
  test("versions/latest answering 200 MiB: the client stops reading past 8 MiB, exit 1", async () => {
    const body = endlessBody(200 * MiB);
    const server = fakeServer(
      () => new Response(body.stream, { headers: { "content-type": "application/json" } }),
    );
    expect(failure(await download(server))).toEqual({
      code: 1,
      stdout: "",
      stderr: [
        `depot download: ${server.url}/api/products/1/versions/latest answered with more than 8 MiB, ` +
          "more than a depot sends: is it a depot server?",
      ],
    });
    expect(body.sent()).toBeLessThan(32 * MiB);
  });

  test("an error answer over 64 KiB: its status says what happened, its body is not read on", async () => {
    const body = endlessBody(200 * MiB);
    const huge = fakeServer(
      () => new Response(body.stream, { status: 404, headers: { "content-type": "text/html" } }),
    );
    expect(failure(await download(huge))).toEqual({
      code: 1,
      stdout: "",
      stderr: [`depot download: ${huge.url}/api/products/1/versions/latest answered 404: Not Found`],
    });
    expect(body.sent()).toBeLessThan(32 * MiB);
    // A depot message is a sentence; one of 100 KiB is not printed either.
    const long = fakeServer(() => Response.json({ message: "x".repeat(100 * 1024) }, { status: 403 }));
    expect(failure(await download(long)).stderr).toEqual([
      `depot download: ${long.url}/api/products/1/versions/latest answered 403: Forbidden`,
    ]);
  });

  test("a Content-Length past the bound is refused the same way", async () => {
    const body = endlessBody(200 * MiB);
    const server = fakeServer(
      () => new Response(body.stream, { headers: { "content-length": String(200 * MiB) } }),
    );
    const result = await download(server);
    expect(failure(result).stderr).toEqual([
      `depot download: ${server.url}/api/products/1/versions/latest answered with more than 8 MiB, ` +
        "more than a depot sends: is it a depot server?",
    ]);
    expect(body.sent()).toBeLessThan(32 * MiB);
  });
});

describe("depot versions stops paging when the pages do not end", () => {
  /**
   * A product list whose page N holds the versions `idsOf(N)` and always links a next page; after
   * `runaway` requests it stops linking one, so a client that never stops still ends (and fails the test).
   */
  function endlessPages(idsOf: (page: number) => number[], runaway = 2000) {
    let requests = 0;
    const server = fakeServer((_, url) => {
      requests++;
      const page = Number(url.searchParams.get("page"));
      const data = idsOf(page).map((id) => ({
        ...versionJson({ id, version_number: `1.0.${id}`, file_name: `app-${id}.bin` }),
        benefit_name: null,
        file_size: 10,
        created_at: "2026-01-01T00:00:00.000Z",
      }));
      const next = requests < runaway ? `${server.url}${url.pathname}?page=${page + 1}` : null;
      return Response.json({ data, links: { first: "", last: null, prev: null, next } });
    });
    return { ...server, requests: () => requests };
  }
  const versions = (server: { url: string }) => run(server, ["versions", "--product", "1", "--json"]);

  test("a server that ignores the page and sends the first one again: stopped at the second, exit 1", async () => {
    const server = endlessPages(() => [3, 2, 1]);
    expect(failure(await versions(server))).toEqual({
      code: 1,
      stdout: "",
      stderr: [
        `depot versions: ${server.url}/api/products/1/versions?per_page=100&page=2 sent only versions of ` +
          "earlier pages, yet links to a next one: stopped paging (is it a depot server?)",
      ],
    });
    expect(server.requests()).toBe(2);
  });

  test("an empty page that links to a next one: stopped there, exit 1", async () => {
    const server = endlessPages((page) => (page === 1 ? [2, 1] : []));
    expect(failure(await versions(server))).toEqual({
      code: 1,
      stdout: "",
      stderr: [
        `depot versions: ${server.url}/api/products/1/versions?per_page=100&page=2 sent an empty page, ` +
          "yet links to a next one: stopped paging (is it a depot server?)",
      ],
    });
    expect(server.requests()).toBe(2);
  });

  test("new versions on every page for ever: stopped after 1,000 pages, exit 1", async () => {
    const server = endlessPages((page) => [page], 1500);
    expect(failure(await versions(server))).toEqual({
      code: 1,
      stdout: "",
      stderr: [
        `depot versions: ${server.url}/api/products/1/versions?per_page=100&page=1000 links to a next page ` +
          "after 1000 pages, more than any product has: stopped paging (is it a depot server?)",
      ],
    });
    expect(server.requests()).toBe(1000);
  }, 60_000);

  test("a version repeated at the top of the next page (one published meanwhile) is listed once", async () => {
    const server = endlessPages((page) => (page === 1 ? [5, 4, 3] : [3, 2, 1]), 2);
    const result = await versions(server);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).versions.map((v: { id: number }) => v.id)).toEqual([5, 4, 3, 2, 1]);
  });
});
