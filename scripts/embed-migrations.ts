// Writes src/db/migrations.gen.ts: every migration in drizzle/ imported as text, so the compiled
// binary carries its migrations (drizzle's own migrator reads them from disk).
// Run by `bun run db:generate`; tests/migrations.test.ts fails if the file is out of date.
import { renderMigrationIndex } from "../src/db/migration-index.ts";

const target = new URL("../src/db/migrations.gen.ts", import.meta.url);
await Bun.write(target, await renderMigrationIndex(new URL("../drizzle/", import.meta.url)));
console.log(`wrote ${target.pathname}`);
