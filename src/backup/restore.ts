import { createReadStream, existsSync, readdirSync } from "node:fs";
import { mkdir, open, rename, rm, rmdir } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import { PGlite } from "@electric-sql/pglite";
import type { Config } from "../config.ts";
import { pgliteAssets, wrapPglite } from "../db/client.ts";
import { PRIVATE_DIRECTORY, PRIVATE_FILE, tightenTree } from "../file-modes.ts";
import { Progress } from "../progress.ts";
import type { BackupSummary } from "./archive.ts";
import { BackupFailed } from "./errors.ts";
import {
  APP_KEY_ENTRY,
  countRows,
  DATABASE_ENTRY,
  fileCounts,
  incompatibility,
  isDumpEntry,
  isSafeEntry,
  MANIFEST_ENTRY,
  type Manifest,
  type ManifestFile,
  PUBLIC_PREFIX,
  parseManifest,
  queryOn,
  RELEASES_PREFIX,
} from "./manifest.ts";
import { readTar, type TarSink, TruncatedArchive } from "./tar.ts";

/** A manifest is a few kilobytes per thousand files; anything near this is not ours. */
const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;

/** What the archive held (as `depot backup` reported it) and where it was restored to. */
export interface RestoreResult extends Omit<BackupSummary, "tar_bytes"> {
  data_dir: string;
  storage_dir: string;
  public_dir: string;
}

/** Where one kind of file goes: unpacked into `staging`, which ends up as `target`. */
interface Place {
  prefix: string;
  target: string;
  staging: string;
  /** Inside DATA_DIR: its staging is part of DATA_DIR's and moves with it. */
  inside: boolean;
}

/** Whether `path` exists with something in it: restore only ever fills empty places. */
export function hasContent(path: string): boolean {
  return existsSync(path) && readdirSync(path).length > 0;
}

/**
 * Restores an archive of `createBackup` into the (empty or absent) DATA_DIR, STORAGE_DIR and PUBLIC_DIR.
 * Everything is unpacked into a staging directory beside each and checked — every entry's size and
 * SHA-256 against the manifest, the end-of-archive marker, every table's row count once the database
 * is loaded — and only then renamed into place. A truncated, damaged or too new archive fails before
 * the rename, and the staging directories are removed: nothing is left behind.
 */
export async function restoreBackup(config: Config, file: string): Promise<RestoreResult> {
  const archive = resolve(file);
  if (!existsSync(archive)) throw new BackupFailed(`${archive} does not exist`);
  const dataDir = config.dataDir;
  const staging = `${dataDir}.restoring-${process.pid}`;
  const place = (prefix: string, target: string): Place => {
    const inside = isInside(dataDir, target);
    const placeStaging = inside
      ? join(staging, relative(dataDir, target))
      : `${target}.restoring-${process.pid}`;
    return { prefix, target, staging: placeStaging, inside };
  };
  const places = [place(RELEASES_PREFIX, config.storageDir), place(PUBLIC_PREFIX, config.publicDir)];
  // What a failed restore removes: the first directory each mkdir created (a missing parent of
  // DATA_DIR included), so that nothing at all is left behind.
  const created: string[] = [];
  try {
    for (const dir of [staging, ...places.filter((p) => !p.inside).map((p) => p.staging)]) {
      const first = await mkdir(dir, { recursive: true, mode: PRIVATE_DIRECTORY });
      if (first) created.push(first);
    }
    for (const p of places) await mkdir(p.staging, { recursive: true, mode: PRIVATE_DIRECTORY });
    const unpacked = new Unpacker(staging, places);
    try {
      await pipeline(createReadStream(archive), createGunzip(), (source) => readTar(source, unpacked));
    } catch (error) {
      if (error instanceof BackupFailed || error instanceof TruncatedArchive) throw error;
      // zlib's "unexpected end of file" and its kin: the compressed stream is cut or corrupt.
      if ((error as NodeJS.ErrnoException).code?.startsWith("Z_")) {
        throw new TruncatedArchive((error as Error).message);
      }
      throw error;
    }
    const manifest = unpacked.complete();
    unpacked.progress?.finish();

    await loadDatabase(join(staging, "db"), join(staging, "database.tar"), manifest);
    // PGlite wrote its files 0666; everything else here was created private (docs/operators.md: File modes).
    tightenTree(join(staging, "db"));

    for (const p of places) if (!p.inside) await moveInto(p.staging, p.target);
    await moveInto(staging, dataDir);
    return {
      data_dir: dataDir,
      storage_dir: config.storageDir,
      public_dir: config.publicDir,
      created_at: manifest.created_at,
      depot_version: manifest.depot_version,
      migrations: manifest.migrations.map((m) => m.tag ?? String(m.created_at)),
      tables: manifest.tables,
      ...fileCounts(manifest.files),
    };
  } catch (error) {
    for (const dir of created) await rm(dir, { recursive: true, force: true });
    if (error instanceof TruncatedArchive)
      throw new BackupFailed(`${archive}: ${error.message}; nothing was restored`);
    if (error instanceof BackupFailed) throw new BackupFailed(`${archive}: ${error.message}`);
    throw error;
  }
}

/** Takes the archive's entries one by one: the manifest first, then only the files it lists. */
class Unpacker implements TarSink {
  manifest: Manifest | null = null;
  progress: Progress | null = null;
  readonly #expected = new Map<string, ManifestFile>();
  readonly #received = new Set<string>();

  constructor(
    private readonly staging: string,
    private readonly places: Place[],
  ) {}

  async entry(name: string, size: number) {
    if (!this.manifest) return this.#manifestEntry(name, size);
    const expected = this.#expected.get(name);
    if (!expected || this.#received.has(name) || !isSafeEntry(name)) {
      throw new BackupFailed(`it holds ${name}, which its manifest does not list`);
    }
    if (size !== expected.size)
      throw new BackupFailed(`${name} is ${size} bytes, its manifest says ${expected.size}`);
    const path = this.#destination(name);
    await mkdir(dirname(path), { recursive: true, mode: PRIVATE_DIRECTORY });
    const handle = await open(path, "wx", PRIVATE_FILE);
    const hash = new Bun.CryptoHasher("sha256");
    const progress = this.progress;
    return {
      async write(chunk: Uint8Array) {
        hash.update(chunk);
        progress?.advance(chunk.byteLength);
        let done = 0;
        while (done < chunk.byteLength) done += (await handle.write(chunk, done)).bytesWritten;
      },
      end: async () => {
        await handle.sync();
        await handle.close();
        if (hash.digest("hex") !== expected.sha256) {
          throw new BackupFailed(
            `${name} does not match the SHA-256 in its manifest (the archive is damaged)`,
          );
        }
        this.#received.add(name);
      },
    };
  }

  async #manifestEntry(name: string, size: number) {
    if (name !== MANIFEST_ENTRY || size > MAX_MANIFEST_BYTES) {
      throw new BackupFailed("it is not a depot backup (its first entry is not manifest.json)");
    }
    const chunks: Uint8Array[] = [];
    return {
      write: async (chunk: Uint8Array) => {
        chunks.push(chunk.slice());
      },
      end: async () => {
        let manifest: Manifest;
        try {
          manifest = parseManifest(Buffer.concat(chunks).toString("utf8"));
        } catch {
          throw new BackupFailed("it is not a depot backup (its manifest cannot be read)");
        }
        const problem = incompatibility(manifest);
        if (problem) throw new BackupFailed(`refused: ${problem}; nothing was restored`);
        for (const file of manifest.files) this.#expected.set(file.path, file);
        this.manifest = manifest;
        this.progress = new Progress(
          "restore",
          manifest.files.reduce((sum, f) => sum + f.size, 0),
        );
      },
    };
  }

  #destination(name: string): string {
    if (name === DATABASE_ENTRY) return join(this.staging, "database.tar");
    if (name === APP_KEY_ENTRY) return join(this.staging, APP_KEY_ENTRY);
    const place = this.places.find((p) => name.startsWith(p.prefix));
    if (!place) throw new BackupFailed(`it holds ${name}, which its manifest does not list`);
    return join(place.staging, name.slice(place.prefix.length));
  }

  /** The manifest, once every file it lists has arrived whole. */
  complete(): Manifest {
    if (!this.manifest) throw new TruncatedArchive("it has no manifest");
    const missing = [...this.#expected.keys()].filter((path) => !this.#received.has(path));
    if (missing.length > 0) throw new TruncatedArchive(`${missing.length} of its files are missing`);
    if (!this.#received.has(DATABASE_ENTRY)) throw new BackupFailed("it holds no database");
    return this.manifest;
  }
}

/**
 * Loads PGlite's dump into `path` and checks every table's row count against the manifest, so a
 * restore that lost rows fails here rather than at the first request.
 */
async function loadDatabase(path: string, dump: string, manifest: Manifest) {
  await requireContainedDump(dump);
  const pglite = await PGlite.create(path, { ...(await pgliteAssets()), loadDataDir: Bun.file(dump) });
  const database = wrapPglite(pglite);
  try {
    const counts = await countRows(queryOn(pglite));
    for (const [table, expected] of Object.entries(manifest.tables)) {
      if (counts[table] !== expected) {
        throw new BackupFailed(
          `the restored table ${table} has ${counts[table] ?? "no"} rows, its manifest says ${expected}`,
        );
      }
    }
  } finally {
    await database.close();
  }
  await rm(dump);
}

/**
 * Every entry of the database dump, checked before PGlite sees any: PGlite writes each where its name
 * says (isDumpEntry), so a hostile archive naming a path outside the data directory is refused here.
 */
async function requireContainedDump(dump: string): Promise<void> {
  const ignored = { write: async () => {}, end: async () => {} };
  try {
    await readTar(
      createReadStream(dump),
      {
        async entry(name) {
          if (isDumpEntry(name)) return ignored;
          throw new BackupFailed(
            `refused: its database dump holds an entry outside the data directory (${name}); nothing was restored`,
          );
        },
      },
      { directories: true },
    );
  } catch (error) {
    if (!(error instanceof TruncatedArchive)) throw error;
    throw new BackupFailed(`refused: its database dump is damaged (${error.detail}); nothing was restored`);
  }
}

/** Renames `staging` to `target`, which may exist only as an empty directory. */
async function moveInto(staging: string, target: string) {
  if (existsSync(target)) await rmdir(target); // fails (ENOTEMPTY) if something appeared meanwhile
  await mkdir(dirname(target), { recursive: true, mode: PRIVATE_DIRECTORY });
  await rename(staging, target);
}

function isInside(parent: string, child: string): boolean {
  const path = relative(parent, child);
  return path !== "" && !path.startsWith("..") && !isAbsolute(path);
}
