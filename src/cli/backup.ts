import { createBackup } from "../backup/create.ts";
import { mebibytes } from "../progress.ts";
import { type Command, printResult, requireEmbeddedStorage, requirePositional } from "./command.ts";

export const backupCommand: Command = {
  name: "backup",
  summary: "archive the embedded database, app.key, the release files and PUBLIC_DIR into FILE (tar.gz)",
  usage: "depot backup FILE [--json]",
  details:
    "Works whether depot is stopped or serving: a running server takes the snapshot itself, through its\n" +
    "control socket in DATA_DIR. With DATABASE_URL use pg_dump and copy STORAGE_DIR instead (docs/operators.md: Backups).",
  positional: "file",
  options: { json: { type: "boolean" } },
  async run(config, values) {
    const file = requirePositional(values, "file", "FILE");
    requireEmbeddedStorage(config, {
      database:
        "depot backup archives the embedded database only; back PostgreSQL up with pg_dump and copy STORAGE_DIR (docs/operators.md: Backups)",
      storage:
        "the release files live in the bucket, not in STORAGE_DIR; back the database up while depot is stopped by copying DATA_DIR, and the bucket with the store's own tools (docs/operators.md: Backups)",
    });
    const result = await createBackup(config, file);
    printResult(
      values.json === true,
      { ...result },
      `Backed up to ${result.file} (${mebibytes(result.bytes)} MiB): the database at migration ` +
        `${result.migrations.at(-1) ?? "none"}, ${result.release_files} release files (${mebibytes(result.release_bytes)} MiB), ` +
        `${result.public_files} files of PUBLIC_DIR (${mebibytes(result.public_bytes)} MiB).`,
    );
    return 0;
  },
};
