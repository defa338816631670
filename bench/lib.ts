// Small helpers every benchmark script uses. The larger shared pieces are in bench/lib/: processes.ts
// (child processes, scratch directories, cleanup), depot.ts (running depot), postgres.ts (the bench
// database), procfs.ts (CPU and memory from /proc), load.ts (autocannon), machine.ts (the report's
// header), files.ts (release files) and releases.ts (the upload and download benchmarks' setting).
import { createServer } from "node:net";

export const MiB = 1024 * 1024;
export const GiB = 1024 * MiB;

/** Progress goes to stderr, so that stdout holds only the result and can be redirected on its own. */
export const log = (line: string) => console.error(line);

/** A TCP port on 127.0.0.1 that nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** The value `p` % of the way up an ascending list, without interpolation; NaN for an empty list. */
export const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

/** `n` of the items in random order, none twice (all of them when there are fewer). */
export function sample<T>(items: T[], n: number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy.slice(0, n);
}

/** Seconds since `t0`, a `performance.now()`. */
export const secondsSince = (t0: number) => (performance.now() - t0) / 1000;

/** The value of the command-line option `--name`, which must be a whole number ≥ `min`. */
export function wholeNumber(name: string, raw: string | undefined, min: number): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min)
    throw new Error(`--${name} must be a whole number ≥ ${min}, got ${raw}`);
  return n;
}
