// CPU time and memory of processes and of the whole machine, from /proc (Linux only). On a shared
// 2-core machine the CPU each side uses says more than throughput alone, and the machine's busy time
// minus ours shows when other work disturbed a measurement.
import { readFileSync } from "node:fs";

/** Clock ticks per second of the times in /proc: USER_HZ, which Linux fixes at 100 for user space. */
const USER_HZ = 100;

/** User + system CPU seconds of a process, all its threads; null when it cannot be read (gone, or not local). */
export function cpuSeconds(pid: number): number | null {
  try {
    // The fields after the command name, which is in parentheses and may hold spaces.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / USER_HZ; // utime, stime
  } catch {
    return null;
  }
}

/** CPU seconds of several processes together; one that cannot be read counts 0. */
export const sumCpu = (pids: number[]) => pids.reduce((sum, pid) => sum + (cpuSeconds(pid) ?? 0), 0);

/** CPU seconds the whole machine has been busy so far, all cores: not idle, not waiting on I/O. */
export function machineBusySeconds(): number {
  const fields = (readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "").trim().split(/\s+/).slice(1, 9);
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields.map(Number);
  return (user + nice + system + irq + softirq + steal) / USER_HZ;
}

/**
 * Starts measuring the cores that everything else on the machine keeps busy: the function returned
 * gives the average since now of the machine's busy time less `ours()` (CPU seconds of what is
 * being measured, read at the start and at the end).
 */
export function othersMeter(ours: () => number): () => number {
  const [machine0, ours0, t0] = [machineBusySeconds(), ours(), performance.now()];
  return () => (machineBusySeconds() - machine0 - (ours() - ours0)) / ((performance.now() - t0) / 1000);
}

/** VmRSS (resident now) or VmHWM (the peak) of a process in MiB; null when it cannot be read. */
export function memoryMiB(pid: number, field: "VmRSS" | "VmHWM"): number | null {
  try {
    const kib = Number(
      new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1],
    );
    return Number.isFinite(kib) ? kib / 1024 : null;
  } catch {
    return null;
  }
}
