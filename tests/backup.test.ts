import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import type { BackupResult } from "../src/backup/create.ts";
import { countRows, queryOn } from "../src/backup/manifest.ts";
import { writeTar } from "../src/backup/tar.ts";
import { openEmbedded } from "../src/db/client.ts";
import { migrations } from "../src/db/migrations.gen.ts";
import type { DemoSeed } from "../src/features/demo/seed.ts";
import { bearer, readJson } from "./helpers/app.ts";
import { sha256 } from "./helpers/bytes.ts";
import { type CliResult, cliEnv, depot, STACK_FRAME, startServer, stderrLines } from "./helpers/cli.ts";
import { publishedVersion } from "./helpers/publish.ts";

/**
 * `depot backup` and `depot restore` run as their own processes on real data directories: an
 * installation seeded by `depot demo:seed`, with releases published through a listening server.
 * Backups are of the embedded database, so these tests run on it whatever TEST_DATABASE_URL says.
 */
setDefaultTimeout(30_000);

const root = mkdtempSync(join(tmpdir(), "depot-backup-"));
const original = join(root, "original");
const archive = join(root, "depot.tar.gz");
const releases = [
  {
    name: "2.0.0",
    bytes: crypto.getRandomValues(new Uint8Array(300_000)),
    fileName: "ultra-perms-2.0.0.jar",
  },
  { name: "2.1.0", bytes: crypto.getRandomValues(new Uint8Array(70_001)), fileName: "ultra-perms-2.1.0.jar" },
];
/** A product image of its own (demo:seed's placeholders are all alike), and files /storage/ never serves. */
const coverImage = "products/ultra-perms/cover.png";
const coverBytes = crypto.getRandomValues(new Uint8Array(5_000));
const hiddenFiles = [".DS_Store", "products/.drafts/cover.png"];
let publicBytes = 0;
let demo: DemoSeed;
let backup: BackupResult;

const single = (result: CliResult) => {
  const lines = result.stdout.trim().split("\n");
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0] ?? "");
};

/** A refusal is one line on stderr, nothing on stdout, no stack trace. */
function expectOneLine(result: CliResult, code: number, pattern: RegExp) {
  expect({ code: result.code, stdout: result.stdout }).toEqual({ code, stdout: "" });
  expect(stderrLines(result)).toHaveLength(1);
  expect(result.stderr).toMatch(pattern);
  expect(result.stderr).not.toMatch(STACK_FRAME);
}

async function stop(server: Awaited<ReturnType<typeof startServer>>) {
  server.proc.kill("SIGTERM");
  expect(await server.proc.exited).toBe(0);
}

/** SHA-256 of every file below `dir` but hidden ones (partial uploads in `.incoming/`, a `.DS_Store`). */
function fileHashes(dir: string): Record<string, string> {
  const hashes: Record<string, string> = {};
  const walk = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.name.startsWith(".")) continue;
      if (entry.isDirectory()) {
        walk(full);
      } else {
        hashes[relative(dir, full)] = new Bun.CryptoHasher("sha256").update(readFileSync(full)).digest("hex");
      }
    }
  };
  walk(dir);
  return hashes;
}

/** Every table's row count, opening the data directory while no depot process holds it. */
async function rowCounts(dataDir: string) {
  const database = await openEmbedded(dataDir);
  try {
    if (!database.pglite) throw new Error("not embedded");
    return await countRows(queryOn(database.pglite));
  } finally {
    await database.close();
  }
}

/** Unpacks the archive with the system's tar, hands its directory to `edit`, packs it again (manifest first). */
async function repack(source: string, target: string, edit: (dir: string) => void | Promise<void>) {
  const dir = mkdtempSync(join(root, "repack-"));
  expect(Bun.spawnSync(["tar", "-xzf", source, "-C", dir]).exitCode).toBe(0);
  await edit(dir);
  const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
  const paths = ["manifest.json", ...manifest.files.map((f: { path: string }) => f.path)];
  expect(Bun.spawnSync(["tar", "-czf", target, "-C", dir, ...paths]).exitCode).toBe(0);
  rmSync(dir, { recursive: true, force: true });
}

/** Nothing but `expected` in `dir`: a refused restore leaves no staging directory behind. */
const entries = (dir: string) => readdirSync(dir).sort();

/** Every directory and file below `dir` (and `dir` itself) whose mode is not private: 0700, 0600. */
function notPrivate(dir: string): string[] {
  const paths = [dir, ...readdirSync(dir, { recursive: true, encoding: "utf8" }).map((p) => join(dir, p))];
  return paths.filter((path) => {
    const stat = statSync(path);
    return (stat.mode & 0o777) !== (stat.isDirectory() ? 0o700 : 0o600);
  });
}

/**
 * `tar` (PGlite's dump of its data directory) with one more entry, named `name`, written by depot's
 * own tar writer where the dump's end-of-archive marker was; `typeFlag` makes it something other
 * than a file ("2": a symbolic link).
 */
async function withExtraEntry(tar: Uint8Array, name: string, typeFlag = "0"): Promise<Uint8Array> {
  let end = 0;
  while (tar.subarray(end, end + 512).some((byte) => byte !== 0)) {
    const size = Number.parseInt(new TextDecoder().decode(tar.subarray(end + 124, end + 136)), 8);
    end += 512 + Math.ceil(size / 512) * 512;
  }
  const body = new TextEncoder().encode("not PostgreSQL's\n");
  const written: Uint8Array[] = [];
  async function* once() {
    yield body;
  }
  for await (const chunk of writeTar([{ name, size: body.byteLength, body: once() }])) written.push(chunk);
  const extra = Buffer.concat(written);
  extra[156] = typeFlag.charCodeAt(0);
  extra.fill(0x20, 148, 156); // the checksum counts itself as spaces
  const checksum = extra.subarray(0, 512).reduce((sum, byte) => sum + byte, 0);
  extra.write(`${checksum.toString(8).padStart(6, "0")}\0`, 148, "latin1");
  return Buffer.concat([tar.subarray(0, end), extra]);
}

/** A copy of `archive` whose database dump has that extra entry, its manifest updated to match. */
async function hostileArchive(name: string, typeFlag?: string): Promise<string> {
  const hostile = join(root, "hostile.tar.gz");
  await repack(archive, hostile, async (dir) => {
    const dumpPath = join(dir, "database", "pgdata.tar");
    const dump = await withExtraEntry(readFileSync(dumpPath), name, typeFlag);
    writeFileSync(dumpPath, dump);
    const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
    const entry = manifest.files.find((f: { path: string }) => f.path === "database/pgdata.tar");
    Object.assign(entry, { size: dump.byteLength, sha256: sha256(dump) });
    writeFileSync(join(dir, "manifest.json"), JSON.stringify(manifest));
  });
  return hostile;
}

beforeAll(async () => {
  const seeded = await depot(["demo:seed", "--json"], { DATA_DIR: original });
  expect(seeded.code).toBe(0);
  demo = single(seeded);
  writeFileSync(join(original, "public", coverImage), coverBytes);
  for (const hidden of hiddenFiles) {
    mkdirSync(dirname(join(original, "public", hidden)), { recursive: true });
    writeFileSync(join(original, "public", hidden), "not for the archive");
  }
  publicBytes = Object.keys(fileHashes(join(original, "public"))).reduce(
    (sum, path) => sum + statSync(join(original, "public", path)).size,
    0,
  );
  const server = await startServer({ DATA_DIR: original });
  try {
    const vera = demo.users.vendors[0]?.token ?? "";
    const product = demo.products[0]?.id ?? 0;
    for (const release of releases) {
      const version = await publishedVersion(server.url, vera, product, release);
      expect(version.file_size).toBe(release.bytes.byteLength);
    }
  } finally {
    await stop(server);
  }
}, 60_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("depot backup, then depot restore into another directory", () => {
  const restored = join(root, "restored");

  test("backup --json prints one object describing the archive", async () => {
    const result = await depot(["backup", archive, "--json"], { DATA_DIR: original });
    expect(result.code).toBe(0);
    // Not a terminal: no progress bar, nothing on stderr.
    expect(result.stderr).toBe("");
    backup = single(result);
    expect(backup).toEqual({
      file: archive,
      bytes: statSync(archive).size,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      depot_version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      migrations: migrations.map((m) => m.tag),
      tables: expect.any(Object),
      release_files: 2,
      release_bytes: 370_001,
      public_files: Object.keys(fileHashes(join(original, "public"))).length,
      public_bytes: publicBytes,
    });
    expect(backup.public_files).toBeGreaterThan(1);
    expect(backup.tables["public.versions"]).toBe(2);
    expect(backup.tables["public.users"]).toBe(demo.users.customers.length + 4);
    expect(readdirSync(root).filter((name) => name.includes(".partial-"))).toEqual([]);
  }, 60_000);

  test("the archive is created 0600: it holds app.key and the whole database", () => {
    expect(statSync(archive).mode & 0o777).toBe(0o600);
  });

  test("on a terminal a progress bar is drawn on stderr, then the result as a readable line", async () => {
    // script(1) gives the command a pseudo-terminal, as an operator's shell would.
    const main = join(import.meta.dir, "../src/main.ts");
    const onTerminal = (args: string, env: Record<string, string>) =>
      Bun.spawnSync(["script", "-qec", `${process.execPath} ${main} ${args}`, "/dev/null"], {
        env: cliEnv(env),
      });
    const file = join(root, "terminal.tar.gz");
    const backedUp = onTerminal(`backup ${file}`, { DATA_DIR: original });
    const shown = backedUp.stdout.toString();
    expect(backedUp.exitCode).toBe(0);
    expect(shown).toMatch(/\rbackup \[#{30}\] 100% [\d.]+\/[\d.]+ MiB\r?\n/);
    expect(shown).toContain(`Backed up to ${file} (`);
    expect(shown).toContain(`2 release files (0.4 MiB), ${backup.public_files} files of PUBLIC_DIR (`);
    const restoredHere = join(root, "terminal-restored");
    const restored = onTerminal(`restore ${file}`, { DATA_DIR: restoredHere });
    expect(restored.exitCode).toBe(0);
    expect(restored.stdout.toString()).toMatch(/\rrestore \[#{30}\] 100% /);
    expect(restored.stdout.toString()).toContain(`into ${restoredHere}: `);
    expect(restored.stdout.toString()).toContain(`${backup.public_files} files of PUBLIC_DIR.`);
    expect(entries(restoredHere)).toEqual(["app.key", "db", "public", "releases"]);
  }, 60_000);

  test("the archive is a plain tar.gz: the manifest first, every file with its size and SHA-256", async () => {
    const listing = Bun.spawnSync(["tar", "-tzf", archive]).stdout.toString().trim().split("\n");
    expect(listing[0]).toBe("manifest.json");
    const dir = mkdtempSync(join(root, "unpacked-"));
    expect(Bun.spawnSync(["tar", "-xzf", archive, "-C", dir]).exitCode).toBe(0);
    const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
    expect(manifest).toMatchObject({
      format: 2,
      depot_version: backup.depot_version,
      created_at: backup.created_at,
      tables: backup.tables,
    });
    expect(manifest.migrations).toEqual(migrations.map((m) => ({ tag: m.tag, created_at: m.createdAt })));
    expect(listing.slice(1)).toEqual(manifest.files.map((f: { path: string }) => f.path));
    expect(listing).toContain("database/pgdata.tar");
    expect(listing).toContain("app.key");
    for (const file of manifest.files) {
      const bytes = readFileSync(join(dir, file.path));
      expect({
        path: file.path,
        size: bytes.byteLength,
        sha256: new Bun.CryptoHasher("sha256").update(bytes).digest("hex"),
      }).toEqual(file);
    }
    const releaseFiles = manifest.files.filter((f: { path: string }) => f.path.startsWith("releases/"));
    const published = releases.map((r) => new Bun.CryptoHasher("sha256").update(r.bytes).digest("hex"));
    expect(releaseFiles.map((f: { sha256: string }) => f.sha256).sort()).toEqual(published.sort());
    // PUBLIC_DIR's files under public/, hidden ones left out.
    const images = manifest.files.filter((f: { path: string }) => f.path.startsWith("public/"));
    expect(
      Object.fromEntries(images.map((f: { path: string; sha256: string }) => [f.path, f.sha256])),
    ).toEqual(
      Object.fromEntries(
        Object.entries(fileHashes(join(original, "public"))).map(([p, h]) => [`public/${p}`, h]),
      ),
    );
    for (const hidden of hiddenFiles) expect(listing).not.toContain(`public/${hidden}`);
    rmSync(dir, { recursive: true, force: true });
  });

  test("restore --json fills a new DATA_DIR and prints one object", async () => {
    const result = await depot(["restore", archive, "--json"], { DATA_DIR: restored });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    expect(single(result)).toEqual({
      data_dir: restored,
      storage_dir: join(restored, "releases"),
      public_dir: join(restored, "public"),
      created_at: backup.created_at,
      depot_version: backup.depot_version,
      migrations: backup.migrations,
      tables: backup.tables,
      release_files: 2,
      release_bytes: 370_001,
      public_files: backup.public_files,
      public_bytes: backup.public_bytes,
    });
    expect(entries(restored)).toEqual(["app.key", "db", "public", "releases"]);
    // Private throughout, PGlite's files included (docs/operators.md: File modes).
    expect(notPrivate(restored)).toEqual([]);
    expect(readdirSync(root).filter((name) => name.includes(".restoring-"))).toEqual([]);
  }, 60_000);

  test("every table's row count and every release file's SHA-256 are the original's", async () => {
    const before = await rowCounts(original);
    const after = await rowCounts(restored);
    expect(after).toEqual(before);
    expect(after).toEqual(backup.tables);
    const hashes = fileHashes(join(original, "releases"));
    expect(Object.keys(hashes)).toHaveLength(2);
    expect(fileHashes(join(restored, "releases"))).toEqual(hashes);
    expect(fileHashes(join(restored, "public"))).toEqual(fileHashes(join(original, "public")));
    for (const hidden of hiddenFiles) expect(existsSync(join(restored, "public", hidden))).toBe(false);
    expect(readFileSync(join(restored, "app.key"), "utf8")).toBe(
      readFileSync(join(original, "app.key"), "utf8"),
    );
  }, 60_000);

  test("a server started on the restored directory serves the releases to their holders", async () => {
    const server = await startServer({ DATA_DIR: restored });
    try {
      const carla = demo.users.customers[0]?.token ?? "";
      const product = demo.products[0]?.id ?? 0;
      const list = await fetch(`${server.url}/api/products/${product}/versions`, { headers: bearer(carla) });
      expect(list.status).toBe(200);
      const versions = (await readJson(list)).data;
      expect(versions.map((v: { version_number: string }) => v.version_number)).toEqual(["2.1.0", "2.0.0"]);
      for (const release of releases) {
        const version = versions.find((v: { version_number: string }) => v.version_number === release.name);
        const download = await fetch(version.download_url.replace(/^https?:\/\/[^/]+/, server.url), {
          headers: bearer(carla),
        });
        expect(download.status).toBe(200);
        expect(download.headers.get("content-disposition")).toBe(
          `attachment; filename="${release.fileName}"`,
        );
        expect(download.headers.get("etag")).toBe(`"${version.sha256}"`);
        expect(new Uint8Array(await download.arrayBuffer())).toEqual(release.bytes);
      }
      // The product's cover image answers from the restored PUBLIC_DIR.
      const cover = await fetch(`${server.url}/storage/${coverImage}`);
      expect(cover.status).toBe(200);
      expect(cover.headers.get("content-type")).toBe("image/png");
      expect(new Uint8Array(await cover.arrayBuffer())).toEqual(coverBytes);
      // The restored app.key still decrypts the signing key: answers are signed as before.
      const validate = await fetch(`${server.url}/api/v1/licenses/validate`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ key: demo.licenses[0]?.key, nonce: "restored" }),
      });
      expect(validate.status).toBe(200);
      expect((await readJson(validate)).valid).toBe(true);
      expect(validate.headers.get("signature")).toMatch(/^depot=:/);
    } finally {
      await stop(server);
    }
    // Still private after that first start on it: what PostgreSQL wrote as it started too.
    expect(notPrivate(restored)).toEqual([]);
  }, 60_000);
});

test("an archive written before PUBLIC_DIR was kept (format 1, no public/) restores as it did", async () => {
  const older = join(root, "format-1.tar.gz");
  await repack(archive, older, (dir) => {
    const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
    const files = manifest.files.filter((f: { path: string }) => !f.path.startsWith("public/"));
    writeFileSync(join(dir, "manifest.json"), JSON.stringify({ ...manifest, format: 1, files }));
  });
  const target = join(root, "from-format-1");
  const result = await depot(["restore", older, "--json"], { DATA_DIR: target });
  expect(result.code).toBe(0);
  expect(single(result)).toMatchObject({ release_files: 2, public_files: 0, public_bytes: 0 });
  expect(fileHashes(join(target, "releases"))).toEqual(fileHashes(join(original, "releases")));
  expect(entries(join(target, "public"))).toEqual([]);
}, 60_000);

describe("depot restore refuses", () => {
  test("a DATA_DIR that is not empty, with one line and exit 2, touching nothing", async () => {
    const target = join(root, "occupied");
    mkdirSync(target);
    writeFileSync(join(target, "notes.txt"), "mine");
    const result = await depot(["restore", archive], { DATA_DIR: target });
    expectOneLine(
      result,
      2,
      /^depot restore: DATA_DIR .*occupied is not empty; restore into an empty or new directory\n$/,
    );
    expect(entries(target)).toEqual(["notes.txt"]);
  });

  test("a STORAGE_DIR elsewhere that is not empty", async () => {
    const storage = join(root, "storage-occupied");
    mkdirSync(storage);
    writeFileSync(join(storage, "old.bin"), "x");
    const result = await depot(["restore", archive], {
      DATA_DIR: join(root, "fresh-1"),
      STORAGE_DIR: storage,
    });
    expectOneLine(result, 2, /^depot restore: STORAGE_DIR .* is not empty/);
    expect(existsSync(join(root, "fresh-1"))).toBe(false);
  });

  test("a PUBLIC_DIR elsewhere that is not empty", async () => {
    const images = join(root, "public-occupied");
    mkdirSync(images);
    writeFileSync(join(images, "logo.png"), "x");
    const result = await depot(["restore", archive], { DATA_DIR: join(root, "fresh-2"), PUBLIC_DIR: images });
    expectOneLine(result, 2, /^depot restore: PUBLIC_DIR .* is not empty/);
    expect(existsSync(join(root, "fresh-2"))).toBe(false);
    expect(entries(images)).toEqual(["logo.png"]);
  });

  test("STORAGE_DIR and PUBLIC_DIR elsewhere, empty: each gets its files", async () => {
    const place = join(root, "elsewhere");
    const env = {
      DATA_DIR: join(place, "data"),
      STORAGE_DIR: join(place, "releases"),
      PUBLIC_DIR: join(place, "images"),
    };
    mkdirSync(env.PUBLIC_DIR, { recursive: true }); // empty: allowed
    const result = await depot(["restore", archive, "--json"], env);
    expect(result.code).toBe(0);
    expect(single(result)).toMatchObject({ storage_dir: env.STORAGE_DIR, public_dir: env.PUBLIC_DIR });
    expect(entries(env.DATA_DIR)).toEqual(["app.key", "db"]);
    expect(fileHashes(env.STORAGE_DIR)).toEqual(fileHashes(join(original, "releases")));
    expect(fileHashes(env.PUBLIC_DIR)).toEqual(fileHashes(join(original, "public")));
    expect(entries(place)).toEqual(["data", "images", "releases"]);
  }, 60_000);

  test("a truncated archive: one line, exit 1, nothing written", async () => {
    const bytes = readFileSync(archive);
    const cut = join(root, "cut.tar.gz");
    // Cut mid-stream (gzip notices), and a whole gzip of a tar cut inside a release file (tar notices).
    const tar = gunzipSync(bytes);
    const cuts = [
      bytes.subarray(0, Math.floor(bytes.byteLength / 2)),
      gzipSync(tar.subarray(0, tar.byteLength - 40_000)),
    ];
    for (const content of cuts) {
      writeFileSync(cut, content);
      const before = entries(root);
      const target = join(root, "missing-parent", "from-truncated");
      const result = await depot(["restore", cut], { DATA_DIR: target });
      expectOneLine(
        result,
        1,
        /^depot restore: .*cut\.tar\.gz: the archive is truncated or damaged \(.+\); nothing was restored\n$/,
      );
      expect(existsSync(join(root, "missing-parent"))).toBe(false);
      expect(entries(root)).toEqual(before);
    }
  }, 60_000);

  test("an archive whose file does not match the manifest's SHA-256", async () => {
    const damaged = join(root, "damaged.tar.gz");
    await repack(archive, damaged, (dir) => {
      const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
      const release = manifest.files.find((f: { path: string }) => f.path.startsWith("releases/"));
      const bytes = readFileSync(join(dir, release.path));
      bytes[0] = (bytes[0] ?? 0) ^ 0xff;
      writeFileSync(join(dir, release.path), bytes);
    });
    const target = join(root, "from-damaged");
    const result = await depot(["restore", damaged], { DATA_DIR: target });
    expectOneLine(result, 1, /releases\/products\/.* does not match the SHA-256 in its manifest/);
    expect(existsSync(target)).toBe(false);
  }, 60_000);

  test("an archive from a newer depot (a migration this one does not know): one line, nothing written", async () => {
    const newer = join(root, "newer.tar.gz");
    await repack(archive, newer, (dir) => {
      const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
      manifest.depot_version = "9.0.0";
      manifest.migrations.push({ tag: "0099_from_the_future", created_at: 4102444800000 });
      writeFileSync(join(dir, "manifest.json"), JSON.stringify(manifest));
    });
    const target = join(root, "from-newer");
    const before = entries(root);
    const result = await depot(["restore", newer], { DATA_DIR: target });
    expectOneLine(
      result,
      1,
      /^depot restore: .*newer\.tar\.gz: refused: it comes from a newer depot \(9\.0\.0\) whose database has migrations this one does not know \(0099_from_the_future\); restore it with that version or later; nothing was restored\n$/,
    );
    expect(existsSync(target)).toBe(false);
    expect(entries(root)).toEqual(before);
  }, 60_000);

  test("an archive in a newer format than this depot reads: one line, nothing written", async () => {
    const newer = join(root, "format-3.tar.gz");
    await repack(archive, newer, (dir) => {
      const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
      writeFileSync(
        join(dir, "manifest.json"),
        JSON.stringify({ ...manifest, format: 3, depot_version: "9.0.0" }),
      );
    });
    const target = join(root, "from-format-3");
    const result = await depot(["restore", newer], { DATA_DIR: target });
    expectOneLine(
      result,
      1,
      /refused: it was written by depot 9\.0\.0 in archive format 3, newer than this depot reads \(2\)/,
    );
    expect(existsSync(target)).toBe(false);
  });

  // PGlite writes each entry of its dump to `<data directory>/<name>` as it finds it; depot checks
  // every name before PGlite sees the dump. ("/global/1262", PGlite's own form, is not absolute.)
  test.each([
    ["climbs out of it", "/../../../escaped-from-a-backup"],
    ["climbs out of it without PGlite's leading slash", "../escaped-from-a-backup"],
    ["is absolute", "//tmp/escaped-from-a-backup"],
  ])(
    "an archive whose database dump holds an entry that %s: one line, nothing written",
    async (_, name) => {
      const hostile = await hostileArchive(name);
      const target = join(root, "from-hostile");
      const before = entries(root);
      const result = await depot(["restore", hostile], { DATA_DIR: target });
      const quoted = name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
      expectOneLine(
        result,
        1,
        new RegExp(
          `^depot restore: .*hostile\\.tar\\.gz: refused: its database dump holds an entry outside the data directory \\(${quoted}\\); nothing was restored\n$`,
        ),
      );
      expect(existsSync(target)).toBe(false);
      expect(entries(root)).toEqual(before);
      rmSync(hostile);
    },
    60_000,
  );

  test("an archive whose database dump holds a symbolic link: one line, nothing written", async () => {
    const hostile = await hostileArchive("/global/pg_control_link", "2");
    const target = join(root, "from-hostile");
    const result = await depot(["restore", hostile], { DATA_DIR: target });
    expectOneLine(
      result,
      1,
      /hostile\.tar\.gz: refused: its database dump is damaged \(it holds something other than regular files and directories\); nothing was restored\n$/,
    );
    expect(existsSync(target)).toBe(false);
    rmSync(hostile);
  }, 60_000);

  test("a file that is not a depot backup", async () => {
    const other = join(root, "other.tar.gz");
    const dir = mkdtempSync(join(root, "other-"));
    writeFileSync(join(dir, "hello.txt"), "hello");
    expect(Bun.spawnSync(["tar", "-czf", other, "-C", dir, "hello.txt"]).exitCode).toBe(0);
    const result = await depot(["restore", other], { DATA_DIR: join(root, "from-other") });
    expectOneLine(result, 1, /its first entry is not manifest\.json/);
    expect(existsSync(join(root, "from-other"))).toBe(false);
  });
});

describe("depot backup refuses", () => {
  test("while depot serve runs without its control socket: one line naming the safe path, no archive", async () => {
    const server = await startServer({ DATA_DIR: original });
    try {
      // As with a server too old to offer one: the socket is the only way in while serve holds the lock.
      rmSync(join(original, "depot.sock"));
      const target = join(root, "while-serving.tar.gz");
      const result = await depot(["backup", target, "--json"], { DATA_DIR: original });
      expectOneLine(
        result,
        1,
        new RegExp(
          `^depot backup: the embedded database in ${original} is in use by depot \\(pid ${server.proc.pid}\\) and it offers no control socket to take the backup through; stop it, run depot backup, then start it again \\(docs/operators.md: Backups\\)\\n$`,
        ),
      );
      expect(readdirSync(root).filter((name) => name.startsWith("while-serving"))).toEqual([]);
      // The server carries on.
      expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
    } finally {
      await stop(server);
    }
  }, 60_000);

  test("a release file that is not what its version records: nothing written", async () => {
    const copy = join(root, "tampered");
    cpSync(original, copy, { recursive: true });
    const [key] = Object.keys(fileHashes(join(copy, "releases")));
    const path = join(copy, "releases", key ?? "");
    const bytes = readFileSync(path);
    bytes[10] = (bytes[10] ?? 0) ^ 0xff;
    writeFileSync(path, bytes);
    const target = join(root, "tampered.tar.gz");
    const result = await depot(["backup", target], { DATA_DIR: copy });
    expectOneLine(
      result,
      1,
      /^depot backup: the release file of version \d+ .* does not match its recorded SHA-256; nothing was written\n$/,
    );
    expect(readdirSync(root).filter((name) => name.startsWith("tampered."))).toEqual([]);
  }, 60_000);

  test("with DATABASE_URL, pointing at pg_dump in the README; restore too", async () => {
    const env = { DATABASE_URL: "postgres://depot@127.0.0.1:1/depot", DATA_DIR: join(root, "unused") };
    expectOneLine(
      await depot(["backup", join(root, "pg.tar.gz")], env),
      2,
      /^depot backup: DATABASE_URL is set: .*pg_dump.*\(docs\/operators\.md: Backups\)\n$/,
    );
    expectOneLine(
      await depot(["restore", archive], env),
      2,
      /^depot restore: DATABASE_URL is set: .*\(docs\/operators\.md: Backups\)\n$/,
    );
    expect(existsSync(join(root, "pg.tar.gz"))).toBe(false);
  });

  test("with STORAGE_URL (release files in a bucket): one line each, exit 2", async () => {
    const env = { STORAGE_URL: "s3://depot-releases/prod", DATA_DIR: original };
    expectOneLine(
      await depot(["backup", join(root, "s3.tar.gz")], env),
      2,
      /^depot backup: STORAGE_URL is set: the release files live in the bucket, .*\(docs\/operators\.md: Backups\)\n$/,
    );
    expectOneLine(
      await depot(["restore", archive], { ...env, DATA_DIR: join(root, "unused") }),
      2,
      /^depot restore: STORAGE_URL is set: .*\(docs\/operators\.md: Backups\)\n$/,
    );
    expect(existsSync(join(root, "s3.tar.gz"))).toBe(false);
    expect(existsSync(join(root, "unused"))).toBe(false);
  });

  test("without FILE, or with two: the usage, exit 2", async () => {
    const missing = await depot(["backup"], { DATA_DIR: original });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe("depot backup: FILE is required\nusage: depot backup FILE [--json]\n");
    const two = await depot(["restore", "a", "b"], { DATA_DIR: join(root, "unused") });
    expect(two.code).toBe(2);
    expect(two.stderr).toBe('depot restore: unexpected argument "b"\nusage: depot restore FILE [--json]\n');
  });

  test("a FILE in a directory that does not exist", async () => {
    const result = await depot(["backup", join(root, "no-such-dir", "x.tar.gz")], { DATA_DIR: original });
    expectOneLine(result, 1, /^depot backup: cannot write .*no-such-dir\/x\.tar\.gz: ENOENT\n$/);
    expect(existsSync(join(root, "no-such-dir"))).toBe(false);
  });

  test("an installation with no database yet", async () => {
    const empty = join(root, "empty");
    mkdirSync(empty);
    const result = await depot(["backup", join(root, "empty.tar.gz")], { DATA_DIR: empty });
    expectOneLine(result, 1, /^depot backup: there is no embedded database in .*empty to back up\n$/);
    expect(entries(empty)).toEqual([]);
  });
});

describe("depot backup while depot serve runs", () => {
  test("goes through the server while uploads go on: every version in the archive has its file", async () => {
    const server = await startServer({ DATA_DIR: original });
    const vera = demo.users.vendors[0]?.token ?? "";
    const product = demo.products[0]?.id ?? 0;
    const published: string[] = [];
    let publishing = true;
    const uploads = (async () => {
      for (let i = 0; publishing; i++) {
        const bytes = crypto.getRandomValues(new Uint8Array(150_000));
        published.push(
          (await publishedVersion(server.url, vera, product, { name: `3.0.${i}`, bytes })).sha256,
        );
      }
    })();
    const live = join(root, "live.tar.gz");
    let result: CliResult;
    try {
      expect(statSync(join(original, "depot.sock")).mode & 0o777).toBe(0o600);
      while (published.length < 2) await Bun.sleep(20);
      result = await depot(["backup", live, "--json"], { DATA_DIR: original });
      const after = published.length;
      while (published.length < after + 2) await Bun.sleep(20); // uploads carried on after the snapshot
    } finally {
      publishing = false;
      await uploads;
      await stop(server);
    }
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    const summary: BackupResult = single(result);
    expect(statSync(live).mode & 0o777).toBe(0o600);
    expect(summary).toMatchObject({
      file: live,
      bytes: statSync(live).size,
      migrations: migrations.map((m) => m.tag),
    });
    const versionsInArchive = summary.tables["public.versions"] ?? 0;
    expect(versionsInArchive).toBeGreaterThanOrEqual(2 + 2);
    expect(versionsInArchive).toBeLessThan(2 + published.length);
    expect(summary.release_files).toBe(versionsInArchive);
    expect(readdirSync(join(original, "releases")).filter((name) => name.startsWith(".backup-"))).toEqual([]);

    const restored = join(root, "live-restored");
    const restore = await depot(["restore", live, "--json"], { DATA_DIR: restored });
    expect(restore.code).toBe(0);
    expect(single(restore).tables).toEqual(summary.tables);
    const database = await openEmbedded(restored);
    try {
      const rows =
        (
          await database.pglite?.query<{ storage_key: string; sha256: string }>(
            "SELECT storage_key, sha256 FROM artifacts ORDER BY id",
          )
        )?.rows ?? [];
      expect(rows).toHaveLength(versionsInArchive);
      const hashes = fileHashes(join(restored, "releases"));
      expect(Object.keys(hashes).sort()).toEqual(rows.map((row) => row.storage_key).sort());
      for (const row of rows) expect(hashes[row.storage_key]).toBe(row.sha256);
    } finally {
      await database.close();
    }
  }, 120_000);

  test("one killed mid-stream leaves the server ready for the next backup and no hard links behind", async () => {
    const server = await startServer({ DATA_DIR: original });
    const target = join(root, "killed.tar.gz");
    try {
      const main = join(import.meta.dir, "../src/main.ts");
      const killed = Bun.spawn([process.execPath, main, "backup", target], {
        env: cliEnv({ DATA_DIR: original }),
        stdout: "ignore",
        stderr: "ignore",
      });
      // Killed once the server has taken its snapshot (its hard links appear), before or while it streams.
      const links = () =>
        readdirSync(join(original, "releases")).filter((name) => name.startsWith(".backup-"));
      const deadline = Date.now() + 20_000;
      while (links().length === 0 && killed.exitCode === null && Date.now() < deadline) await Bun.sleep(2);
      killed.kill("SIGKILL");
      await killed.exited;
      rmSync(`${target}.partial-${killed.pid}`, { force: true });
      for (let i = 0; i < 100 && links().length > 0; i++) await Bun.sleep(50);
      expect(links()).toEqual([]);
      const next = await depot(["backup", target, "--json"], { DATA_DIR: original });
      expect({ code: next.code, stderr: next.stderr }).toEqual({ code: 0, stderr: "" });
      expect(single(next).file).toBe(target);
    } finally {
      await stop(server);
    }
  }, 60_000);
});
