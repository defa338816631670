import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  checkForUpdate,
  downloadDifferential,
  downloadFull,
  genericClient,
  writeBlockmap,
} from "./helpers/electron-updater.ts";

/**
 * The harness the update-feed tests stand on, shown to work on its own: electron-updater's
 * GenericProvider and differential downloader, run under Bun with a node:http executor, against a
 * directory of files as electron-builder leaves them for a generic server (a yml, two installers
 * with blockmaps), served by Bun as any static server would. If this fails, the feed tests'
 * failures say nothing about depot.
 */

const dir = mkdtempSync(join(tmpdir(), "updater-harness-"));
const cache = mkdtempSync(join(tmpdir(), "updater-cache-"));
let server: ReturnType<typeof Bun.serve>;
let base: string;
const sha512 = (bytes: Uint8Array) => createHash("sha512").update(bytes).digest("base64");

const OLD = randomBytes(4 * 1024 * 1024);
/** The same installer with 5 % of it rewritten in place. */
const NEW = Buffer.from(OLD);
randomBytes(200 * 1024).copy(NEW, 1024 * 1024);

beforeAll(() => {
  writeFileSync(join(dir, "App-1.0.0.exe"), OLD);
  writeFileSync(join(dir, "App-1.1.0.exe"), NEW);
  const built = writeBlockmap(join(dir, "App-1.1.0.exe"));
  writeBlockmap(join(dir, "App-1.0.0.exe"));
  expect(built).toMatchObject({ size: NEW.length, sha512: sha512(NEW) });
  writeFileSync(
    join(dir, "latest.yml"),
    [
      "version: 1.1.0",
      "files:",
      "  - url: App-1.1.0.exe",
      `    sha512: ${built.sha512}`,
      `    size: ${built.size}`,
      "path: App-1.1.0.exe",
      `sha512: ${built.sha512}`,
      "releaseDate: '2026-11-26T09:00:00.000Z'",
      "",
    ].join("\n"),
  );
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (request) => {
      const file = Bun.file(join(dir, new URL(request.url).pathname.slice(1)));
      return new Response(file);
    },
  });
  base = `http://127.0.0.1:${server.port}/`;
});

afterAll(() => {
  server.stop(true);
  rmSync(dir, { recursive: true, force: true });
  rmSync(cache, { recursive: true, force: true });
});

describe("electron-updater without Electron", () => {
  test("the generic provider reads latest.yml and resolves its file against the feed URL", async () => {
    const { info, files } = await checkForUpdate(genericClient({ url: base, platform: "win32" }));
    expect(info.version).toBe("1.1.0");
    expect(files).toHaveLength(1);
    expect(files[0]?.url.href).toBe(`${base}App-1.1.0.exe`);
    expect(files[0]?.info.sha512).toBe(sha512(NEW));
  });

  test("a full download checks the sha512, and a wrong one fails", async () => {
    const client = genericClient({ url: base, platform: "win32" });
    const [file] = (await checkForUpdate(client)).files;
    if (!file) throw new Error("no file");
    const destination = join(cache, "full.exe");
    await downloadFull(client, file, destination);
    expect(sha512(readFileSync(destination))).toBe(sha512(NEW));
    const wrong = { ...file, info: { ...file.info, sha512: sha512(OLD) } };
    await expect(downloadFull(client, wrong, join(cache, "wrong.exe"))).rejects.toThrow(
      /sha512 checksum mismatch/,
    );
  });

  test("a differential download (single ranges) rebuilds the new file from the old one", async () => {
    // Bun's static file serving answers one range per request, so the downloader is told so.
    const client = genericClient({ url: base, platform: "win32", multipleRanges: false });
    const [file] = (await checkForUpdate(client)).files;
    if (!file) throw new Error("no file");
    const oldFile = join(cache, "installer.exe");
    writeFileSync(oldFile, OLD);
    const newFile = join(cache, "differential.exe");
    const log = await downloadDifferential(
      client,
      file,
      { old: "1.0.0", new: "1.1.0" },
      { oldFile, newFile },
    );
    expect(sha512(readFileSync(newFile))).toBe(sha512(NEW));
    const planned = log.lines.find((line) => line.startsWith("Full:"));
    const percent = Number(/\((\d+)%\)/.exec(planned ?? "")?.[1]);
    // 5 % rewritten: the content-defined blocks around it are fetched, the rest copied.
    expect(percent).toBeGreaterThan(0);
    expect(percent).toBeLessThanOrEqual(10);
  });
});
