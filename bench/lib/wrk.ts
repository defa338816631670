// One run of Debian's wrk (C; `apt-get install -y wrk`), the load generator of round three's
// benchmarks: it takes a fraction of the CPU autocannon (a Node program) takes, so on this 2-core
// machine the servers, not the generator, set the numbers (bench/README.md).
import { cpus } from "node:os";
import { cpuSeconds } from "./procfs.ts";

export interface WrkRun {
  /** Where wrk sends its requests; a Lua script may set the path, method and headers. */
  url: string;
  connections: number;
  /** Measured seconds. */
  duration: number;
  /** A Lua script (`-s`), for a request that varies or a body. */
  script?: string;
  headers?: Record<string, string>;
}

export interface WrkResult {
  rps: number;
  /** As wrk prints them, with their unit ("1.52ms"). */
  p50: string;
  p99: string;
  /** Non-2xx/3xx answers and socket errors as wrk reports them; empty when there were none. */
  errors: string;
  /** wrk's own CPU (its utime + stime) as a share of the machine's cores over the run. */
  wrkShare: number;
}

/** Runs `wrk -t2 -cN -dS --latency` and reads its report. */
export async function wrk(run: WrkRun): Promise<WrkResult> {
  const headers = Object.entries(run.headers ?? {}).flatMap(([name, value]) => ["-H", `${name}: ${value}`]);
  const script = run.script === undefined ? [] : ["-s", run.script];
  const proc = Bun.spawn(
    ["wrk", "-t2", `-c${run.connections}`, `-d${run.duration}s`, "--latency", ...headers, ...script, run.url],
    { stdout: "pipe", stderr: "pipe" },
  );
  // Sampled until just before it exits: the CPU of the whole run, its threads included.
  let cpu = 0;
  const sampler = setInterval(() => {
    cpu = cpuSeconds(proc.pid) ?? cpu;
  }, 200);
  const text = await new Response(proc.stdout).text();
  clearInterval(sampler);
  if ((await proc.exited) !== 0) throw new Error(`wrk failed: ${await new Response(proc.stderr).text()}`);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1] ?? 0);
  const p50 = /\s50%\s+(\S+)/.exec(text)?.[1] ?? "?";
  const p99 = /\s99%\s+(\S+)/.exec(text)?.[1] ?? "?";
  const errors = [/Non-2xx or 3xx responses: (\d+)/, /Socket errors: ([^\n]+)/]
    .map((re) => re.exec(text)?.[0])
    .filter(Boolean)
    .join("; ");
  return { rps, p50, p99, errors, wrkShare: cpu / (cpus().length * run.duration) };
}
