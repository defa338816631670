// HTTP load from autocannon. It runs under node, in a process of its own: autocannon is a node tool,
// and a separate process keeps the load generator's CPU out of this one, so it can be measured apart.
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { track, untrack } from "./processes.ts";

/** One request the load is drawn from (at random, for every request sent). */
export interface LoadRequest {
  method: "GET" | "POST";
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface LoadResult {
  rps: number;
  /** Latency percentiles and maximum, ms (whole ms: autocannon's resolution). */
  p50: number;
  p90: number;
  p99: number;
  max: number;
  total: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** CPU seconds of the whole autocannon process (node's start-up included). */
  loaderCpuSeconds: number;
}

const autocannonPath = fileURLToPath(import.meta.resolve("autocannon"));

// A warm-up (discarded) and the measurement in one autocannon process; a line on stderr before and
// after the measurement lets the bench read its CPU counters around exactly that part. The headers
// are copied per request because autocannon writes Content-Length into the object it is given.
const RUNNER = `
const autocannon = require(process.env.BENCH_AUTOCANNON);
const cfg = JSON.parse(require("node:fs").readFileSync(process.env.BENCH_LOAD, "utf8"));
const pick = () => cfg.requests[Math.floor(Math.random() * cfg.requests.length)];
const run = (duration) => new Promise((resolve, reject) => {
  autocannon({
    url: cfg.url,
    connections: cfg.connections,
    duration,
    requests: [{
      setupRequest: (req) => {
        const r = pick();
        return { ...req, ...r, headers: { ...r.headers } };
      },
    }],
  }, (error, result) => (error ? reject(error) : resolve(result)));
});
(async () => {
  if (cfg.warmup > 0) await run(cfg.warmup);
  process.stderr.write("measuring\\n");
  const r = await run(cfg.duration);
  process.stderr.write("done\\n");
  process.stdout.write(JSON.stringify({
    rps: r.requests.total / r.duration, p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99,
    max: r.latency.max, total: r.requests.total, non2xx: r.non2xx, errors: r.errors, timeouts: r.timeouts,
  }));
})().catch((error) => { console.error(error); process.exit(1); });
`;

/**
 * `connections` concurrent connections against `url` for `warmup` seconds (not measured, 0 for none)
 * and then `duration` seconds, each request one of `requests` drawn at random. `onMeasuring` and
 * `onDone` are called with autocannon's pid as the measured seconds start and end. The configuration
 * is written to a file in `dir`.
 */
export async function autocannon(options: {
  url: string;
  connections: number;
  warmup: number;
  duration: number;
  requests: LoadRequest[];
  dir: string;
  onMeasuring?: (pid: number) => unknown;
  onDone?: (pid: number) => unknown;
}): Promise<LoadResult> {
  const { url, connections, warmup, duration, requests } = options;
  const config = join(options.dir, "load.json");
  await Bun.write(config, JSON.stringify({ url, connections, warmup, duration, requests }));
  const proc = track(
    Bun.spawn(["node", "-e", RUNNER], {
      env: { ...process.env, BENCH_AUTOCANNON: autocannonPath, BENCH_LOAD: config },
      stdout: "pipe",
      stderr: "pipe",
    }),
  );
  let err = "";
  const seen = { measuring: false, done: false };
  const watch = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of proc.stderr) {
      err += decoder.decode(chunk, { stream: true });
      if (!seen.measuring && err.includes("measuring\n")) {
        seen.measuring = true;
        await options.onMeasuring?.(proc.pid);
      }
      if (seen.measuring && !seen.done && err.includes("done\n")) {
        seen.done = true;
        await options.onDone?.(proc.pid);
      }
    }
  })();
  const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited, watch]);
  untrack(proc);
  if (code !== 0) throw new Error(`autocannon exited ${code}:\n${err.trim()}`);
  if (!seen.done) throw new Error(`autocannon did not report its phases:\n${err.trim()}`);
  const result = JSON.parse(out) as Omit<LoadResult, "loaderCpuSeconds">;
  return { ...result, loaderCpuSeconds: Number(proc.resourceUsage()?.cpuTime.total ?? 0n) / 1e6 };
}
