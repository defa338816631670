import { migrations } from "../db/migrations.gen.ts";

/**
 * Raised when the archive layout changes in a way an older depot cannot read: 2 added `public/`
 * (product images), which a depot reading format 1 would take for a damaged archive.
 */
export const MANIFEST_FORMAT = 2;
/** The first entry of every archive. */
export const MANIFEST_ENTRY = "manifest.json";
/** PGlite's own dump of its data directory (`dumpDataDir`), a tar inside the archive. */
export const DATABASE_ENTRY = "database/pgdata.tar";
/** `$DATA_DIR/app.key`, when the installation generated one (not with an explicit APP_KEY). */
export const APP_KEY_ENTRY = "app.key";
/** Release files keep their storage key below this. */
export const RELEASES_PREFIX = "releases/";
/** The files of PUBLIC_DIR (product images) keep their path there below this. */
export const PUBLIC_PREFIX = "public/";

export interface ManifestFile {
  path: string;
  size: number;
  sha256: string;
}

/** How many release files and files of PUBLIC_DIR an archive holds, and their bytes. */
export function fileCounts(files: ManifestFile[]) {
  const under = (prefix: string) => files.filter((f) => f.path.startsWith(prefix));
  const bytes = (of: ManifestFile[]) => of.reduce((sum, f) => sum + f.size, 0);
  const releases = under(RELEASES_PREFIX);
  const images = under(PUBLIC_PREFIX);
  return {
    release_files: releases.length,
    release_bytes: bytes(releases),
    public_files: images.length,
    public_bytes: bytes(images),
  };
}

export interface Manifest {
  format: number;
  depot_version: string;
  created_at: string;
  /** The migrations applied to the archived database, oldest first. */
  migrations: { tag: string | null; created_at: number }[];
  /** Rows per table, `schema.table`, at the moment of the snapshot. */
  tables: Record<string, number>;
  /** Every entry after the manifest, in archive order. */
  files: ManifestFile[];
}

/** Runs one SQL statement and returns its rows (PGlite's `query` or a transaction's). */
export type Query = <T>(text: string) => Promise<T[]>;

/** The migrations recorded in the database, named by this binary's index where it knows them. */
export async function appliedMigrations(query: Query): Promise<Manifest["migrations"]> {
  const rows = await query<{ created_at: string }>(
    "SELECT created_at::text AS created_at FROM drizzle.__drizzle_migrations ORDER BY id",
  );
  return rows.map((row) => {
    const createdAt = Number(row.created_at);
    return { tag: migrations.find((m) => m.createdAt === createdAt)?.tag ?? null, created_at: createdAt };
  });
}

/** Every user table (depot's, drizzle's bookkeeping, pg-boss's) with its row count. */
export async function countRows(query: Query): Promise<Record<string, number>> {
  const tables = await query<{ schemaname: string; tablename: string }>(
    `SELECT schemaname, tablename FROM pg_tables
     WHERE schemaname NOT IN ('pg_catalog', 'information_schema') ORDER BY schemaname, tablename`,
  );
  const counts: Record<string, number> = {};
  for (const { schemaname, tablename } of tables) {
    const [row] = await query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${ident(schemaname)}.${ident(tablename)}`,
    );
    counts[`${schemaname}.${tablename}`] = row?.n ?? 0;
  }
  return counts;
}

const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** `Query` over a PGlite handle or one of its transactions. */
export const queryOn =
  (client: { query<T>(text: string): Promise<{ rows: T[] }> }): Query =>
  async <T>(text: string) =>
    (await client.query<T>(text)).rows;

/**
 * Why this binary cannot restore `manifest`, or null when it can: an archive from a newer depot may
 * hold tables or columns this one would not know, so it is refused before anything is written.
 */
export function incompatibility(manifest: Manifest): string | null {
  if (manifest.format > MANIFEST_FORMAT) {
    return `it was written by depot ${manifest.depot_version} in archive format ${manifest.format}, newer than this depot reads (${MANIFEST_FORMAT})`;
  }
  const known = new Set(migrations.map((m) => m.createdAt));
  const unknown = manifest.migrations.filter((m) => !known.has(m.created_at));
  if (unknown.length > 0) {
    const names = unknown.map((m) => m.tag ?? String(m.created_at)).join(", ");
    return `it comes from a newer depot (${manifest.depot_version}) whose database has migrations this one does not know (${names}); restore it with that version or later`;
  }
  return null;
}

/** Parses the manifest entry, or explains what is wrong with it. */
export function parseManifest(text: string): Manifest {
  const value: unknown = JSON.parse(text);
  const m = value as Partial<Manifest> | null;
  if (
    !m ||
    typeof m.format !== "number" ||
    typeof m.depot_version !== "string" ||
    !Array.isArray(m.migrations) ||
    !Array.isArray(m.files) ||
    typeof m.tables !== "object" ||
    m.tables === null
  ) {
    throw new Error("its manifest is not a depot backup manifest");
  }
  return m as Manifest;
}

/**
 * Whether `name`, an entry of PGlite's dump of its data directory, stays inside that directory.
 * PGlite names its entries from the directory's root ("/global/1262") and writes each to
 * `<data directory>/<name>` without resolving it, so one leading slash is its format; a name that is
 * still absolute without it, or has a `..` (or an empty or `.`) part, is not a path PGlite writes.
 */
export function isDumpEntry(name: string): boolean {
  const parts = (name.startsWith("/") ? name.slice(1) : name).split("/");
  return parts.every((part) => part !== "" && part !== "." && part !== "..");
}

/** Whether `path` is an entry name a restore may write: one of ours, never outside the target. */
export function isSafeEntry(path: string): boolean {
  if (path === DATABASE_ENTRY || path === APP_KEY_ENTRY) return true;
  const prefix = [RELEASES_PREFIX, PUBLIC_PREFIX].find((p) => path.startsWith(p));
  if (prefix === undefined) return false;
  const parts = path.slice(prefix.length).split("/");
  return parts.every((part) => part !== "" && part !== "." && part !== ".." && !part.includes("\\"));
}
