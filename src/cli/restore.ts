import { hasContent, restoreBackup } from "../backup/restore.ts";
import {
  type Command,
  printResult,
  requireEmbeddedStorage,
  requirePositional,
  UsageError,
} from "./command.ts";

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
    requireEmbeddedStorage(config, {
      database:
        "depot restore fills an embedded DATA_DIR only; restore PostgreSQL with pg_restore (docs/operators.md: Backups)",
      storage:
        "depot restore puts release files into STORAGE_DIR on local disk; unset it to restore, then copy the files into the bucket (docs/operators.md: Backups)",
    });
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
