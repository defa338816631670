import { hasContent, restoreBackup } from "../backup/restore.ts";
import { type Command, printResult, requirePositional, UsageError } from "./command.ts";

export const restoreCommand: Command = {
  name: "restore",
  summary: "restore a depot backup FILE into an empty DATA_DIR (and STORAGE_DIR, PUBLIC_DIR)",
  usage: "depot restore FILE [--json]",
  details:
    "DATA_DIR (and STORAGE_DIR, PUBLIC_DIR when they lie elsewhere) must be empty or absent. A truncated\n" +
    "or damaged archive, or one from a newer depot, is refused and nothing is written.",
  positional: "file",
  options: { json: { type: "boolean" } },
  async run(config, values) {
    const file = requirePositional(values, "file", "FILE");
    if (config.databaseUrl !== null) {
      throw new UsageError(
        "DATABASE_URL is set: depot restore fills an embedded DATA_DIR only; restore PostgreSQL with pg_restore (docs/operators.md: Backups)",
        false,
      );
    }
    if (config.objectStorage !== null) {
      throw new UsageError(
        "STORAGE_URL is set: depot restore puts release files into STORAGE_DIR on local disk; unset it to restore, then copy the files into the bucket (docs/operators.md: Backups)",
        false,
      );
    }
    for (const [variable, path] of [
      ["DATA_DIR", config.dataDir],
      ["STORAGE_DIR", config.storageDir],
      ["PUBLIC_DIR", config.publicDir],
    ] as const) {
      if (hasContent(path)) {
        throw new UsageError(
          `${variable} ${path} is not empty; restore into an empty or new directory`,
          false,
        );
      }
    }
    const result = await restoreBackup(config, file);
    printResult(
      values.json === true,
      { ...result },
      `Restored the backup of ${result.created_at} (depot ${result.depot_version}) into ${result.data_dir}: ` +
        `${Object.keys(result.tables).length} tables, ${result.release_files} release files, ` +
        `${result.public_files} files of PUBLIC_DIR. Start depot there.`,
    );
    return 0;
  },
};
