import type { FileSink, Subprocess } from "bun";
import { isCompiledBinary } from "../compiled.ts";
import type { Config } from "../config.ts";
import type { Logger } from "../log.ts";
import { type Exposition, type MetricsSnapshot, sumOfProcesses } from "../metrics/metrics.ts";
import { startMetricsServer } from "../metrics/server.ts";
import { listenStartupError } from "../startup-errors.ts";
import { SERVE_PROCESS_COUNT, SERVE_PROCESS_SLOT, type ToChild, type ToParent } from "./serve-link.ts";
import { untilSignal } from "./signals.ts";

/** A restarted process waits this long after its first crash, doubling up to RESTART_MAX_MS. */
const RESTART_FIRST_MS = 500;
const RESTART_MAX_MS = 30_000;
/** A process that served this long before it died is restarted at once (its earlier crashes are forgiven). */
const HEALTHY_AFTER_MS = 30_000;
/** How long a scrape waits for each process's snapshot; one that does not answer is left out. */
const SNAPSHOT_TIMEOUT_MS = 2000;

interface ServeProcess {
  readonly slot: number;
  proc: Subprocess<"ignore", "pipe", "inherit"> | null;
  ready: boolean;
  startedAt: number;
  /** Crashes in a row, each soon after a start: the restart delay grows with them. */
  crashes: number;
  restartTimer: ReturnType<typeof setTimeout> | null;
}

/**
 * How `depot serve` starts itself again: the compiled binary is its own program (its built-in Bun flags
 * come with it); from the sources it is Bun with this process's flags and entry script.
 */
function selfCommand(): string[] {
  const entry = process.argv[1];
  return isCompiledBinary || entry === undefined
    ? [process.execPath]
    : [process.execPath, ...process.execArgv, entry];
}

/**
 * `depot serve` with several HTTP processes (on PostgreSQL; SERVE_PROCESSES, `--processes`). This
 * process is their parent and serves nothing itself: each child is a whole `depot serve` listening on
 * the same port with SO_REUSEPORT (the kernel spreads connections over them), and the child in slot 0
 * alone runs the jobs, the sweeps and the first-run steps. The parent restarts a child that dies, with
 * a growing delay; on SIGTERM or SIGINT it passes the signal on and waits for every child to drain; it
 * sums the children's metrics for a scrape (whichever child it lands on, and METRICS_PORT, which the
 * parent serves).
 */
export class ServeProcesses {
  readonly #children: ServeProcess[];
  #port = 0;
  /** Every child's log lines, written by this process only, so that no two lines are ever interleaved. */
  readonly #stdout = Bun.stdout.writer();
  #stopping = false;
  #starting = true;
  #nextScrape = 1;
  readonly #snapshots = new Map<number, { wanted: number; got: MetricsSnapshot[]; done: () => void }>();
  /** Settles when a child dies before the first start completed: start-up failed, with its exit code. */
  #failed: (code: number) => void = () => {};

  constructor(
    private readonly config: Config,
    private readonly log: Logger,
    count: number,
    private readonly args: string[],
  ) {
    this.#children = Array.from({ length: count }, (_, slot) => ({
      slot,
      proc: null,
      ready: false,
      startedAt: 0,
      crashes: 0,
      restartTimer: null,
    }));
  }

  /** Starts every process and serves until a signal; returns the exit code. */
  async run(): Promise<number> {
    this.#port = this.#probePort();
    const failed = new Promise<number>((resolve) => {
      this.#failed = resolve;
    });
    const [first, ...rest] = this.#children;
    if (!first) return 0;
    // The first one alone migrates, creates the signing key and prints a first run's setup link.
    const started = await Promise.race([this.#start(first), failed]);
    if (typeof started === "number") return this.#abort(started);
    const all = await Promise.race([Promise.all(rest.map((child) => this.#start(child))), failed]);
    if (typeof all === "number") return this.#abort(all);
    this.#starting = false;
    const metricsServer = startMetricsServer(this.config, this.config.metricsPort === null ? null : this);
    this.log.info("serving", {
      url: `http://${this.config.host}:${this.#port}`,
      processes: this.#children.length,
      pids: this.#children.map((child) => child.proc?.pid),
    });
    const signal = await untilSignal();
    this.log.info("shutting down", { signal, processes: this.#children.length });
    metricsServer?.stop(true);
    await this.#stopAll(signal);
    this.log.info("stopped");
    return 0;
  }

  /** The sum of every ready child's metrics (counters and histograms added up, gauges by their aggregator). */
  async exposition(): Promise<Exposition> {
    const ready = this.#children.filter((child) => child.ready && child.proc);
    const id = this.#nextScrape++;
    const got: MetricsSnapshot[] = [];
    await new Promise<void>((resolve) => {
      this.#snapshots.set(id, { wanted: ready.length, got, done: resolve });
      setTimeout(resolve, SNAPSHOT_TIMEOUT_MS).unref();
      for (const child of ready) child.proc?.send({ type: "snapshot", id } satisfies ToChild);
      if (ready.length === 0) resolve();
    });
    this.#snapshots.delete(id);
    return sumOfProcesses(got);
  }

  /**
   * The port, checked free before any child binds it with SO_REUSEPORT (which would otherwise join
   * another program's sockets on it silently). Once the children listen, a program that tries to
   * bind it without SO_REUSEPORT is refused. PORT=0 picks a free port here, for all of them.
   */
  #probePort(): number {
    const { port, host } = this.config;
    try {
      const probe = Bun.serve({ port, hostname: host, reusePort: false, fetch: () => new Response(null) });
      const chosen = probe.port ?? port;
      probe.stop(true);
      return chosen;
    } catch (error) {
      throw listenStartupError(error, host, port) ?? error;
    }
  }

  /** Spawns `child` and resolves once it listens. */
  #start(child: ServeProcess): Promise<void> {
    return new Promise((resolve) => {
      child.ready = false;
      child.startedAt = Date.now();
      const proc = Bun.spawn([...selfCommand(), ...this.args], {
        env: {
          ...process.env,
          PORT: String(this.#port),
          [SERVE_PROCESS_SLOT]: String(child.slot),
          // Each child sizes its pool from DATABASE_POOL_SIZE and how many they are (db/pool-size.ts).
          [SERVE_PROCESS_COUNT]: String(this.#children.length),
        },
        // stdout through this process, whole lines at a time (forwardLines); stderr is rare and goes straight out.
        stdio: ["ignore", "pipe", "inherit"],
        ipc: (message: ToParent) => {
          if (message.type === "ready") {
            child.ready = true;
            resolve();
          } else this.#fromChild(child, message);
        },
        onExit: (_proc, code, signal) => this.#exited(child, code, signal),
      });
      child.proc = proc;
      void forwardLines(proc.stdout, this.#stdout);
    });
  }

  #fromChild(child: ServeProcess, message: ToParent): void {
    if (message.type === "scrape") {
      void this.exposition().then(
        (exposition) => child.proc?.send({ type: "scraped", id: message.id, exposition } satisfies ToChild),
        () => child.proc?.send({ type: "scraped", id: message.id, exposition: null } satisfies ToChild),
      );
    } else if (message.type === "snapshot") {
      const scrape = this.#snapshots.get(message.id);
      if (!scrape) return;
      if (message.metrics) scrape.got.push(message.metrics);
      if (--scrape.wanted <= 0) scrape.done();
    }
  }

  #exited(child: ServeProcess, code: number | null, signal: number | null | string): void {
    const pid = child.proc?.pid;
    child.proc = null;
    child.ready = false;
    if (this.#stopping) return;
    if (this.#starting) {
      // It said why on stderr (a bad setting, the database away): stop with its exit code, as one process would.
      this.#failed(code ?? 1);
      return;
    }
    const lived = Date.now() - child.startedAt;
    child.crashes = lived >= HEALTHY_AFTER_MS ? 0 : child.crashes + 1;
    const delay =
      child.crashes === 0 ? 0 : Math.min(RESTART_MAX_MS, RESTART_FIRST_MS * 2 ** (child.crashes - 1));
    this.log.error("serve process exited; restarting it", {
      slot: child.slot,
      pid,
      code,
      signal,
      restart_in_ms: delay,
    });
    child.restartTimer = setTimeout(() => {
      child.restartTimer = null;
      if (this.#stopping) return;
      void this.#start(child).then(() =>
        this.log.info("serve process restarted", { slot: child.slot, pid: child.proc?.pid }),
      );
    }, delay);
  }

  /** Start-up failed: the children already running are stopped, and the first failure's code returned. */
  async #abort(code: number): Promise<number> {
    await this.#stopAll("SIGTERM");
    return code === 0 ? 1 : code;
  }

  /** Passes the signal to every child and waits for them all to drain and exit. */
  async #stopAll(signal: NodeJS.Signals): Promise<void> {
    this.#stopping = true;
    const running: Promise<unknown>[] = [];
    for (const child of this.#children) {
      if (child.restartTimer) clearTimeout(child.restartTimer);
      if (!child.proc) continue;
      child.proc.kill(signal);
      running.push(child.proc.exited);
    }
    await Promise.all(running);
  }
}

/**
 * Copies a child's stdout to ours, whole lines at a time. Several processes writing one pipe (a log
 * collector, journald, `docker logs`) would otherwise interleave: a batch of log lines larger than
 * the pipe's atomic write size (4 KiB) can be split by another process's write in the middle of a line.
 */
async function forwardLines(from: ReadableStream<Uint8Array>, to: FileSink): Promise<void> {
  let rest: Uint8Array | null = null;
  for await (const chunk of from) {
    const end = chunk.lastIndexOf(10);
    if (end === -1) {
      rest = rest ? Buffer.concat([rest, chunk]) : chunk.slice();
      continue;
    }
    // Both writes happen in one turn of the event loop: no other child's bytes come between them.
    if (rest) to.write(rest);
    to.write(chunk.subarray(0, end + 1));
    rest = end + 1 < chunk.length ? chunk.slice(end + 1) : null;
    to.flush();
  }
  if (rest) to.write(rest);
  to.flush();
}
