import { afterAll, describe, expect, test } from "bun:test";
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { fromPglite } from "pg-boss";
import { buildInitialData, installPgBoss } from "../scripts/initial-data.ts";
import { ConfigError, loadConfig } from "../src/config.ts";
import { openEmbedded, pgliteAssets, wrapPglite } from "../src/db/client.ts";
import { initialise } from "../src/db/embedded-init.ts";
import { migrate } from "../src/db/migrate.ts";
import { migrations } from "../src/db/migrations.gen.ts";
import { createLogger } from "../src/log.ts";
import { openRuntime } from "../src/runtime.ts";
import { describeDatabase } from "./helpers/catalog.ts";
import { startServer } from "./helpers/cli.ts";

/**
 * A first start on the embedded database unpacks the initial data (src/db/initial-data.ts: what
 * `npm run build` embeds in the binary, made from this tree's migrations) instead of running initdb.
 * These tests run on PGlite whatever TEST_DATABASE_URL says. Each initdb here takes 5–50 s,
 * depending on the machine's load.
 */
const INITDB_TIMEOUT_MS = 300_000;

const root = mkdtempSync(join(tmpdir(), "depot-initial-data-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let fresh: Promise<Record<string, unknown[]>> | undefined;

/** What the first start used to make, described: PGlite's initdb, every migration, pg-boss's schema. */
function freshDatabase() {
  fresh ??= (async () => {
    const pglite = await PGlite.create(await pgliteAssets());
    try {
      await migrate(wrapPglite(pglite).db, migrations);
      await installPgBoss({ db: fromPglite(pglite), backend: "pglite" });
      return await describeDatabase(pglite);
    } finally {
      await pglite.close();
    }
  })();
  return fresh;
}

/** Every entry below `dir` whose mode is not private (0700 directories, 0600 files). */
function notPrivate(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((path) => {
      const stat = lstatSync(path);
      return (stat.mode & 0o777) !== (stat.isDirectory() ? 0o700 : 0o600);
    });
}

const sha256 = (text: string) => new Bun.CryptoHasher("sha256").update(text).digest("hex");

describe("the initial data a first start unpacks", () => {
  test(
    "equals a fresh initdb with every migration and pg-boss's schema: catalog, settings and rows",
    async () => {
      const dataDir = join(root, "first");
      mkdirSync(dataDir, { mode: 0o700 });
      const database = await openEmbedded(dataDir);
      try {
        const pglite = database.pglite as PGlite;
        const shipped = await describeDatabase(pglite);
        expect(shipped).toEqual(await freshDatabase());
        // The migration records, as migrate() writes them: every migration once, in order.
        const recorded = await pglite.query<{ hash: string; created_at: string }>(
          "SELECT hash, created_at::text FROM drizzle.__drizzle_migrations ORDER BY id",
        );
        expect(recorded.rows).toEqual(
          migrations.map((m) => ({ hash: sha256(m.sql), created_at: String(m.createdAt) })),
        );
        // The description is not vacuous: depot's tables and pg-boss's are in it.
        const tables = (shipped.relations as { nspname: string; relname: string }[]).map(
          (r) => `${r.nspname}.${r.relname}`,
        );
        expect(tables).toEqual(expect.arrayContaining(["public.licenses", "pgboss.version", "pgboss.job"]));
      } finally {
        await database.close();
      }
      expect(readdirSync(dataDir).toSorted()).toEqual(["db"]);
    },
    INITDB_TIMEOUT_MS,
  );

  test(
    "missing the newest migration, the first start applies it and ends where a fresh initdb does",
    async () => {
      const newest = migrations.at(-1);
      if (!newest) throw new Error("no migrations");
      const archive = join(root, "older.tar.gz");
      await buildInitialData(archive, migrations.slice(0, -1));
      const dataDir = join(root, "older");
      mkdirSync(dataDir, { mode: 0o700 });
      // The first start's unpacking, given the older archive; then the start itself.
      await initialise(join(dataDir, "db"), archive);
      // Private, as everything depot writes (what PGlite creates later is 0666, behind DATA_DIR's 0700).
      expect(notPrivate(join(dataDir, "db"))).toEqual([]);
      expect(readdirSync(dataDir)).toEqual(["db"]);
      const runtime = await openRuntime(loadConfig({ DATA_DIR: dataDir }), createLogger("silent"));
      try {
        expect(runtime.applied).toEqual([newest.tag]);
        expect(await describeDatabase(runtime.database.pglite as PGlite)).toEqual(await freshDatabase());
      } finally {
        await runtime.close();
      }
    },
    INITDB_TIMEOUT_MS,
  );
});

describe("a first start", () => {
  test("runs no other process: none below it, none it waited for", async () => {
    const dataDir = join(root, "served");
    const server = await startServer({ DATA_DIR: dataDir }, 120_000);
    try {
      const pid = server.proc.pid;
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      // cutime and cstime: the CPU time of the children it has waited for, in clock ticks.
      expect({ cutime: fields[13], cstime: fields[14] }).toEqual({ cutime: "0", cstime: "0" });
      const children = readdirSync("/proc").filter((name) => {
        if (!/^\d+$/.test(name)) return false;
        try {
          const s = readFileSync(`/proc/${name}/stat`, "utf8");
          return s.slice(s.lastIndexOf(")") + 2).split(" ")[1] === String(pid);
        } catch {
          return false; // gone meanwhile
        }
      });
      expect(children).toEqual([]);
      const health = await fetch(`${server.url}/api/health`);
      expect(await health.json()).toEqual({ status: "ok" });
    } finally {
      server.proc.kill("SIGTERM");
      expect(await server.proc.exited).toBe(0);
    }
  }, 120_000);

  test("after one that was interrupted while unpacking: the leftover is removed and the start succeeds", async () => {
    const dataDir = join(root, "interrupted");
    mkdirSync(join(dataDir, "db.unpacking", "base"), { recursive: true, mode: 0o700 });
    writeFileSync(join(dataDir, "db.unpacking", "PG_VERSION"), "18\n");
    const database = await openEmbedded(dataDir);
    try {
      const answer = await database.pglite?.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations",
      );
      expect(answer?.rows).toEqual([{ n: migrations.length }]);
    } finally {
      await database.close();
    }
    expect(readdirSync(dataDir).toSorted()).toEqual(["db"]);
  }, 60_000);

  test("an empty db directory is taken; one with files but no database is refused, naming DATA_DIR", async () => {
    const empty = join(root, "empty-db");
    mkdirSync(join(empty, "db"), { recursive: true, mode: 0o700 });
    const database = await openEmbedded(empty);
    await database.close();
    expect(readdirSync(join(empty, "db"))).toContain("PG_VERSION");

    const taken = join(root, "taken-db");
    mkdirSync(join(taken, "db"), { recursive: true, mode: 0o700 });
    writeFileSync(join(taken, "db", "notes.txt"), "not a database");
    const refused = await openEmbedded(taken).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as ConfigError).message).toBe(
      `DATA_DIR: ${join(taken, "db")} holds files but no database (no PG_VERSION): move it away and start again`,
    );
    // Left as it was, with nothing unpacked beside it, and not locked.
    expect(readdirSync(taken).toSorted()).toEqual(["db"]);
    expect(readdirSync(join(taken, "db"))).toEqual(["notes.txt"]);
  }, 60_000);
});
