// What a report says about the machine it was measured on: results from a shared 2-core machine
// only mean something next to its CPU, memory, disk and load.
import { cpus, loadavg, release, totalmem } from "node:os";
import { GiB } from "../lib.ts";
import { run } from "./processes.ts";

/** "2 × Intel(R) Xeon(R) Processor" */
export const cpuSummary = () => `${cpus().length} × ${cpus()[0]?.model ?? "unknown CPU"}`;

/** "23 GiB" */
export const memorySummary = () => `${(totalmem() / GiB).toFixed(0)} GiB`;

/** "linux-x64" */
export const platform = () => `${process.platform}-${process.arch}`;

/** The 1, 5 and 15 minute load averages: "0.52 0.80 1.02". */
export const loadAverage = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(" ");

/** The first line of a file-transfer benchmark's header. */
export const machineLine = () =>
  `Machine: ${cpuSummary()}, ${memorySummary()}, Linux ${release()}; load average at start ${loadAverage()}`;

/**
 * The device and file system `dir` is on. Throws for tmpfs and ramfs: files there live in memory,
 * and the benchmarks that ask measure a disk.
 */
export async function diskOf(dir: string): Promise<{ source: string; fstype: string }> {
  const mount = (await run(["findmnt", "-n", "-o", "SOURCE,FSTYPE", "-T", dir])).out.trim();
  const [source = "?", fstype = "?"] = mount.split(/\s+/);
  if (fstype === "tmpfs" || fstype === "ramfs") {
    throw new Error(`${dir} is on ${fstype}; pass --dir on a real disk`);
  }
  return { source, fstype };
}

/** "curl 7.88.1" */
export async function curlVersion(): Promise<string> {
  const first = (await run(["curl", "--version"])).out.split("\n")[0] ?? "";
  return first.split(" ").slice(0, 2).join(" ");
}
