import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openEmbedded } from "../../src/db/client.ts";
import { startTestApp, type TestApp } from "./app.ts";
import { onPostgres } from "./db.ts";

/**
 * Two tests of `run`, each against an app of its own: one on embedded PGlite in a data directory (as
 * `depot serve` runs it, whatever database the suite runs on), one on PostgreSQL when the suite has
 * one, and skipped with a name that says so when it has not. For what must hold on both, such as a
 * limit under concurrent requests.
 */
export function testOnBothDatabases(
  run: (app: TestApp) => Promise<void>,
  options: { env?: Record<string, string>; timeoutMs: number },
) {
  // A first embedded start compiles PGlite and runs initdb: seconds, not milliseconds.
  test(
    "on the embedded database (PGlite in a data directory, as `depot serve` runs it)",
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), "depot-both-databases-"));
      try {
        const app = await startTestApp({ database: await openEmbedded(dataDir), env: options.env });
        try {
          await run(app);
        } finally {
          await app.close();
        }
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
    options.timeoutMs,
  );

  test.skipIf(!onPostgres)(
    onPostgres
      ? "on PostgreSQL"
      : "on PostgreSQL — SKIPPED: set TEST_DATABASE_URL to a PostgreSQL server to run it",
    async () => {
      const app = await startTestApp({ env: options.env });
      expect(app.ctx.database.kind).toBe("postgres");
      try {
        await run(app);
      } finally {
        await app.close();
      }
    },
    options.timeoutMs,
  );
}
