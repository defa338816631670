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
    const database = await openDatabase(config);
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
