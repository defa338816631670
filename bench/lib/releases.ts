// What the upload and download benchmarks stand on: depot with one product to publish release files
// to, on a database of their own and in a work directory that holds DATA_DIR and STORAGE_DIR (on
// the disk that `--dir` names, so that the files go where the measurement says).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import {
  BENCH_ADMIN,
  createProduct,
  createToken,
  createUser,
  type DepotCli,
  depotBinary,
  depotCli,
  depotEnv,
  startDepot,
} from "./depot.ts";
import { BenchDatabase } from "./postgres.ts";
import { type Server, tempDir } from "./processes.ts";

export class ReleaseBench {
  readonly binary: string;
  /** Removed at exit, like the database and every process. */
  readonly workDir: string;
  readonly storageDir: string;
  /** The bench's own database (its tables, for a benchmark that seeds rows with SQL). */
  readonly database: BenchDatabase;
  /** depot's environment: the bench database, DATA_DIR and STORAGE_DIR; LOG_LEVEL its default. */
  private readonly env: Record<string, string>;
  private readonly depot: DepotCli;

  /** `name` tells the work directories apart; `options` are the script's --pg, --dir and --binary. */
  constructor(
    name: string,
    options: { pg?: string; dir?: string; binary?: string },
    databaseName = "depot_bench_files",
  ) {
    this.database = BenchDatabase.onServer(databaseName, options.pg ?? "");
    this.binary = depotBinary(options.binary);
    this.workDir = tempDir(`depot-bench-${name}-`, options.dir);
    const dataDir = join(this.workDir, "data");
    this.storageDir = join(this.workDir, "storage");
    for (const dir of [dataDir, this.storageDir]) mkdirSync(dir, { recursive: true });
    this.env = depotEnv({ DATABASE_URL: this.database.url, DATA_DIR: dataDir, STORAGE_DIR: this.storageDir });
    this.depot = depotCli(this.binary, this.env, this.workDir);
  }

  /**
   * A new database (dropped at exit) with depot's schema, an admin and its bearer token, `depot serve
   * --no-workers` with `settings` on top of `env` (its stdout, a JSON line per request, to depot.log
   * in the work directory), and a product owned by the admin (its id too).
   */
  async start(
    settings: Record<string, string> = {},
  ): Promise<{ server: Server; token: string; productId: number; adminId: number }> {
    await this.database.recreate();
    this.database.dropAtExit();
    await this.depot(["migrate"]);
    const adminId = await createUser(this.depot, BENCH_ADMIN);
    const token = await createToken(this.depot, adminId);
    const server = await startDepot({
      binary: this.binary,
      cwd: this.workDir,
      env: { ...this.env, ...settings },
      stdout: join(this.workDir, "depot.log"),
      stderr: join(this.workDir, "depot.err"),
    });
    const productId = await createProduct(server.origin, token, adminId);
    return { server, token, productId, adminId };
  }

  /** A second `depot serve --no-workers` on the same database, with `settings` (another release store). */
  another(name: string, settings: Record<string, string>): Promise<Server> {
    return startDepot({
      binary: this.binary,
      cwd: this.workDir,
      env: { ...this.env, ...settings },
      stdout: join(this.workDir, `depot-${name}.log`),
      stderr: join(this.workDir, `depot-${name}.err`),
      what: `depot serve (${name})`,
    });
  }
}
