// CPU time and memory of processes and of the whole machine, from /proc (Linux only). On a shared
// 2-core machine the CPU each side uses says more than throughput alone, and the machine's busy time
// minus ours shows when other work disturbed a measurement.
import { readdirSync, readFileSync } from "node:fs";

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

/** The fields of /proc/PID/stat after the command name (which is in parentheses and may hold spaces). */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
}

/** `root` and every live process below it, found by each process's parent in /proc/PID/stat. */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    const parent = Number(statFields(pid)?.[1]);
    if (Number.isInteger(parent)) children.set(parent, [...(children.get(parent) ?? []), pid]);
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i] as number) ?? []));
  return tree;
}

/**
 * CPU seconds of a process tree so far: every live process of it, plus the children its root has
 * already waited for (cutime + cstime), such as a short-lived helper that ran during start-up.
 */
export function treeCpuSeconds(root: number): number {
  const fields = statFields(root);
  const reaped = fields ? (Number(fields[13]) + Number(fields[14])) / USER_HZ : 0; // cutime, cstime
  return reaped + sumCpu(processTree(root));
}

/**
 * Samples the resident memory of a process tree (the sum of its processes' VmRSS) every `intervalMs`
 * until `stop()`, which gives the largest sum seen. The tree is looked up again every fifth sample: a
 * helper process lives seconds, not milliseconds.
 */
export function sampleTreeMemory(
  root: number,
  intervalMs = 20,
): { stop(): { peakMiB: number; samples: number } } {
  let tree = [root];
  let samples = 0;
  let peakMiB = 0;
  const timer = setInterval(() => {
    if (samples % 5 === 0) tree = processTree(root);
    samples++;
    const sum = tree.reduce((total, pid) => total + (memoryMiB(pid, "VmRSS") ?? 0), 0);
    peakMiB = Math.max(peakMiB, sum);
  }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      return { peakMiB, samples };
    },
  };
}
