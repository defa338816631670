import { type Exposition, type Metrics, type MetricsSnapshot, sumOfProcesses } from "../metrics/metrics.ts";

/**
 * What a `depot serve` parent and its HTTP processes say to each other over Bun's IPC channel
 * (cli/serve-processes.ts is the parent). A child says when it listens; a scrape of `/metrics` that
 * lands on any child is answered with the sum over all of them, which only the parent can gather.
 */
export type ToParent =
  | { type: "ready" }
  | { type: "scrape"; id: number }
  | { type: "snapshot"; id: number; metrics: MetricsSnapshot | null };

export type ToChild =
  | { type: "snapshot"; id: number }
  | { type: "scraped"; id: number; exposition: Exposition | null };

/** The environment variable that makes `depot serve` one of a parent's HTTP processes: its slot, from 0. */
export const SERVE_PROCESS_SLOT = "DEPOT_SERVE_PROCESS";

/**
 * The environment variable that tells each of a parent's HTTP processes how many they are, so that
 * each takes its share of DATABASE_POOL_SIZE (db/pool-size.ts).
 */
export const SERVE_PROCESS_COUNT = "DEPOT_SERVE_PROCESSES";

/** How many HTTP processes this process's parent runs; 1 when it has none (or did not say). */
export function serveProcessCount(): number {
  const raw = process.env[SERVE_PROCESS_COUNT];
  return raw !== undefined && /^[1-9]\d*$/.test(raw) ? Number(raw) : 1;
}

/** This process's slot when a `depot serve` parent started it, else null. */
export function serveProcessSlot(): number | null {
  const raw = process.env[SERVE_PROCESS_SLOT];
  if (raw === undefined || !/^\d+$/.test(raw) || typeof process.send !== "function") return null;
  return Number(raw);
}

/** How long a scrape waits for the parent's sum before answering with this process's metrics alone. */
const SCRAPE_TIMEOUT_MS = 3000;

/**
 * The child's end: scrapes are answered with every process's metrics, the parent's snapshot requests
 * are answered with this process's, and `gone` resolves when the parent is (its channel closed: it was
 * killed), so that an orphan drains and stops instead of holding the port and the database.
 */
export function linkToParent(metrics: Metrics | null) {
  const send = (message: ToParent) => process.send?.(message);
  const waiting = new Map<number, (exposition: Exposition | null) => void>();
  let nextId = 1;
  process.on("message", (message: ToChild) => {
    if (message.type === "snapshot") {
      void (metrics?.snapshot() ?? Promise.resolve(null)).then(
        (snapshot) => send({ type: "snapshot", id: message.id, metrics: snapshot }),
        () => send({ type: "snapshot", id: message.id, metrics: null }),
      );
    } else if (message.type === "scraped") {
      waiting.get(message.id)?.(message.exposition);
      waiting.delete(message.id);
    }
  });
  if (metrics) {
    // The parent is stopping or did not answer: this process's metrics alone.
    const own = () => metrics.snapshot().then((snapshot) => sumOfProcesses([snapshot]));
    metrics.gatherWith(async () => {
      const id = nextId++;
      const answer = new Promise<Exposition | null>((resolve) => {
        waiting.set(id, resolve);
        setTimeout(() => resolve(null), SCRAPE_TIMEOUT_MS).unref();
      });
      send({ type: "scrape", id });
      const exposition = await answer;
      waiting.delete(id);
      return exposition ?? own();
    });
  }
  const gone = new Promise<"parent gone">((resolve) =>
    process.once("disconnect", () => resolve("parent gone")),
  );
  return { ready: () => send({ type: "ready" }), gone };
}
