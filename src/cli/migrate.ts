import { migrate } from "../db/migrate.ts";
import { migrations } from "../db/migrations.gen.ts";
import { createLogger } from "../log.ts";
import { openDatabase } from "../runtime.ts";
import type { Command } from "./command.ts";

export const migrateCommand: Command = {
  name: "migrate",
  summary: "apply pending migrations, exit",
  usage: "depot migrate [--json]",
  options: { json: { type: "boolean" } },
  async run(config, values) {
    // Logs go to stderr: with --json stdout carries the result only.
    const log = createLogger(config.logLevel, (line) => process.stderr.write(`${line}\n`));
    const database = await openDatabase(config, log);
    try {
      const applied = await database.withoutStatementTimeout((db) => migrate(db, migrations));
      if (values.json) process.stdout.write(`${JSON.stringify({ applied })}\n`);
      else createLogger("info", (line) => process.stderr.write(`${line}\n`)).info("migrated", { applied });
      return 0;
    } finally {
      await database.close();
    }
  },
};
