import pkg from "../../package.json" with { type: "json" };
import { BackupFailed } from "./errors.ts";
import {
  APP_KEY_ENTRY,
  DATABASE_ENTRY,
  fileCounts,
  MANIFEST_ENTRY,
  MANIFEST_FORMAT,
  type Manifest,
  type ManifestFile,
  PUBLIC_PREFIX,
  RELEASES_PREFIX,
} from "./manifest.ts";
import type { PublicFile, Snapshot } from "./snapshot.ts";
import { type TarEntry, writeTar } from "./tar.ts";

/** What a backup holds, as `depot backup --json` prints it (with `file` and `bytes` of the archive). */
export interface BackupSummary {
  created_at: string;
  depot_version: string;
  migrations: string[];
  tables: Record<string, number>;
  release_files: number;
  release_bytes: number;
  /** Files of PUBLIC_DIR (product images). */
  public_files: number;
  public_bytes: number;
  /** Size of the uncompressed tar stream, for a progress bar. */
  tar_bytes: number;
}

interface Planned extends ManifestFile {
  source: { path: string } | { bytes: Uint8Array };
  /** What a mismatch means, for the error. */
  what: string;
}

/**
 * The tar stream of a snapshot (manifest first, then the database dump, app.key, the release files
 * and PUBLIC_DIR's) and its summary. Every file is hashed on its way into the stream: one that is not
 * what its version (or, for PUBLIC_DIR, the snapshot) recorded breaks the stream with a BackupFailed.
 */
export function archiveSnapshot(
  snapshot: Snapshot,
  appKey: Uint8Array | null,
  onBytes: (n: number) => void = () => {},
): { summary: BackupSummary; tar: AsyncGenerator<Uint8Array> } {
  const planned: Planned[] = [
    {
      path: DATABASE_ENTRY,
      ...digest(snapshot.dump),
      source: { bytes: snapshot.dump },
      what: "the database dump",
    },
  ];
  if (appKey)
    planned.push({ path: APP_KEY_ENTRY, ...digest(appKey), source: { bytes: appKey }, what: "app.key" });
  for (const file of snapshot.files) {
    planned.push(
      onDisk(RELEASES_PREFIX, file, `the release file of version ${file.versionId} (${file.key})`),
    );
  }
  for (const file of snapshot.publicFiles)
    planned.push(onDisk(PUBLIC_PREFIX, file, `PUBLIC_DIR's ${file.key}`));
  const createdAt = new Date().toISOString();
  const manifest: Manifest = {
    format: MANIFEST_FORMAT,
    depot_version: pkg.version,
    created_at: createdAt,
    migrations: snapshot.migrations,
    tables: snapshot.tables,
    files: planned.map(({ path, size, sha256 }) => ({ path, size, sha256 })),
  };
  const manifestBytes = new TextEncoder().encode(`${JSON.stringify(manifest, null, 2)}\n`);
  const entries: TarEntry[] = [
    { name: MANIFEST_ENTRY, size: manifestBytes.byteLength, body: once(manifestBytes) },
    ...planned.map((p) => ({ name: p.path, size: p.size, body: checked(p) })),
  ];
  const summary: BackupSummary = {
    created_at: createdAt,
    depot_version: pkg.version,
    migrations: snapshot.migrations.map((m) => m.tag ?? String(m.created_at)),
    tables: snapshot.tables,
    ...fileCounts(manifest.files),
    tar_bytes: entries.reduce((sum, e) => sum + 512 + Math.ceil(e.size / 512) * 512, 1024),
  };
  return { summary, tar: counted(writeTar(entries), onBytes) };
}

async function* counted(source: AsyncIterable<Uint8Array>, onBytes: (n: number) => void) {
  for await (const chunk of source) {
    onBytes(chunk.byteLength);
    yield chunk;
  }
}

/** A file read from disk into the archive under `prefix`. */
const onDisk = (prefix: string, file: PublicFile, what: string): Planned => ({
  path: `${prefix}${file.key}`,
  size: file.size,
  sha256: file.sha256,
  source: { path: file.path },
  what,
});

function digest(bytes: Uint8Array): { size: number; sha256: string } {
  return { size: bytes.byteLength, sha256: new Bun.CryptoHasher("sha256").update(bytes).digest("hex") };
}

async function* once(bytes: Uint8Array) {
  yield bytes;
}

async function* checked(entry: Planned): AsyncGenerator<Uint8Array> {
  const hash = new Bun.CryptoHasher("sha256");
  const chunks: AsyncIterable<Uint8Array> =
    "bytes" in entry.source ? once(entry.source.bytes) : Bun.file(entry.source.path).stream();
  for await (const chunk of chunks) {
    hash.update(chunk);
    yield chunk;
  }
  if (hash.digest("hex") !== entry.sha256) {
    throw new BackupFailed(`${entry.what} does not match its recorded SHA-256; nothing was written`);
  }
}
