// Downloading a release file with 16 concurrent connections, depot against nginx (bench/README.md, issue 5).
//
//   npm run build && bun bench/download.ts [options]
//
//   --duration S      seconds measured per slice (default 5)
//   --rounds N        slices per server, alternating depot/nginx (default 4: 20 s measured for each)
//   --connections N   concurrent downloads (default 16)
//   --dir PATH        parent of the work directory (default the OS temp dir); it must be a real disk
//   --pg URL          PostgreSQL server, without a database name (default postgres://root@127.0.0.1:5432)
//   --binary PATH     the depot binary (default dist/depot; this script builds nothing)
//   --bare            a third server in the same slices: a bare Bun.serve answering `new Response(Bun.file(…))`
//                     for the same file (no routing, auth, database or headers): Bun's own share of the gap
//   --s3              object-storage mode: one more server in the same slices, a second depot on the same
//                     database whose STORAGE_URL is a bucket of s3rver (own process, objects in the work
//                     directory; bench/lib/s3.ts), serving the same 100 MiB published to it, proxied
//                     (STORAGE_DOWNLOADS=proxy); reported against depot from local disk (issue 13)
//
// What it does:
// 1. nginx: installed with `apt-get install -y nginx-light` when there is no `nginx` (needs root;
//    Debian's policy-rc.d in containers keeps the package's own service from starting).
// 2. Database `depot_bench_files` (dropped and re-created), `depot migrate`, an admin and its token
//    through the CLI, `depot serve --no-workers` at the DEFAULT LOG_LEVEL (info: one JSON line per
//    request), a product, and a 100 MiB random file published by multipart. The stored file is
//    found under STORAGE_DIR/products/<product>/ and its sha256 checked.
// 3. nginx serves that same stored file (same disk, same inode) on another port: a minimal config
//    with `sendfile on`, one worker per core, no access log, run in the foreground by this script.
// 4. Measurement, in slices that alternate between the servers (depot, nginx, nginx, depot, depot, …)
//    so that both see the same changing load from the rest of this shared 2-core machine. In a
//    slice N workers each run `curl -s -o /dev/null` one download after another; after a 1 s ramp,
//    the bytes the server writes (`wchar` of /proc/PID/io, which counts sendfile) are counted for
//    `--duration` seconds while all N connections are busy; then no new download starts and those in
//    flight finish. Every download must answer 200 with the whole file. Depot's downloads carry the
//    admin's bearer token (each one authenticates and reads the version from PostgreSQL). One
//    download per worker warms each server up first, and one from each is checked with sha256sum.
//    Also per slice: the server's CPU per GiB (depot; nginx master + workers, from /proc), the curl
//    clients' CPU (their rusage), MiB delivered per CPU-second of server + clients, and the cores
//    everything else kept busy (/proc/stat minus those two). The clients, not the servers, use most
//    of the CPU, so MiB/s moves with the other tenants' load; MiB per CPU-second much less.
// The work directory, the database, depot and nginx are gone when this exits, however it exits.

import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { cpus } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { Subprocess } from "bun";
import { builtBinary } from "./lib/depot.ts";
import { randomFile, sha256sum } from "./lib/files.ts";
import { curlVersion, diskOf, loadAverage, machineLine } from "./lib/machine.ts";
import { run, runMain, stop, textOf, track, untrack, waitUntilUp } from "./lib/processes.ts";
import { memoryMiB, othersMeter, sumCpu } from "./lib/procfs.ts";
import { ReleaseBench } from "./lib/releases.ts";
import { startS3 } from "./lib/s3.ts";
import { freePort, GiB, log, MiB, median, wholeNumber } from "./lib.ts";

const FILE_BYTES = 100 * MiB;
const TARGET_RATIO = 0.8;
/** Seconds of load before a slice's window opens: every connection is busy by then. */
const RAMP_S = 1;

const { values: opts } = parseArgs({
  options: {
    duration: { type: "string", default: "5" },
    connections: { type: "string", default: "16" },
    rounds: { type: "string", default: "4" },
    dir: { type: "string" },
    pg: { type: "string", default: "postgres://root@127.0.0.1:5432" },
    binary: { type: "string" },
    bare: { type: "boolean", default: false },
    s3: { type: "boolean", default: false },
  },
});
const duration = wholeNumber("duration", opts.duration, 1);
const connections = wholeNumber("connections", opts.connections, 1);
const rounds = wholeNumber("rounds", opts.rounds, 1);
const bench = new ReleaseBench("download", opts);
const { binary, workDir, storageDir } = bench;
const nginxDir = join(workDir, "nginx");

// ---------------------------------------------------------------------------------------------
// /proc: nginx's workers and the bytes a server sends.

/** The pids whose parent is `pid` (nginx's workers). */
function children(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/** Bytes the processes have written so far, sendfile included (`wchar` of /proc/PID/io). */
function bytesWritten(pids: number[]): number {
  let sum = 0;
  for (const pid of pids) {
    try {
      sum += Number(/^wchar:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/io`, "utf8"))?.[1] ?? 0);
    } catch {}
  }
  return sum;
}

// ---------------------------------------------------------------------------------------------
// Load.

type Server = "depot" | "nginx" | "bare" | "depot-s3";

interface Measured {
  server: Server;
  round: number;
  /** Bytes the server wrote during the measured window (all connections busy) over its length. */
  mibPerS: number;
  /**
   * The clients' view: whole downloads finished over the slice's wall time, ramp and drain included
   * (so a little lower than mibPerS). The only figure for depot-s3: /proc's wchar counts sendfile and
   * write(), not the send() of a streamed body.
   */
  clientMibPerS: number;
  downloads: number;
  failures: number;
  medianDownloadS: number;
  /** Server CPU per GiB sent, over the window. */
  serverCpuPerGiB: number;
  /** Over the whole slice, ramp and drain included: CPU of the server and of the curl clients. */
  serverCpuS: number;
  clientCpuS: number;
  /** MiB delivered per CPU-second of server + curl clients: much less sensitive to other tenants than MiB/s. */
  mibPerCpuS: number;
  /** Cores kept busy by everything but the server and the curl clients (other work on this shared machine). */
  othersCores: number;
}

function curlArgs(url: string, headers: string[]): string[] {
  return [
    "curl",
    "-s",
    "-o",
    "/dev/null",
    "-w",
    "%{http_code} %{size_download} %{time_total}",
    ...headers,
    url,
  ];
}

/**
 * One slice: `connections` workers, each downloading one after another. After RAMP_S, the bytes the
 * server writes are counted for `duration` seconds; then no new download starts and the ones in
 * flight finish (each must be 200 with the whole file).
 */
async function measure(
  server: Server,
  round: number,
  url: string,
  headers: string[],
  pids: () => number[],
): Promise<Measured> {
  const cpu = () => sumCpu(pids());
  const sliceStart = performance.now();
  const stopAt = performance.now() + (RAMP_S + duration) * 1000;
  const startCpu = cpu();
  let failures = 0;
  let clientCpuS = 0;
  // The curl clients' CPU is known as each one exits, so all of it by the end of the slice.
  const others = othersMeter(() => cpu() + clientCpuS);
  const times: number[] = [];
  const worker = async () => {
    while (performance.now() < stopAt) {
      const proc = track(Bun.spawn(curlArgs(url, headers), { stdout: "pipe", stderr: "ignore" }));
      const out = await new Response(proc.stdout).text();
      await proc.exited;
      untrack(proc);
      clientCpuS += Number(proc.resourceUsage()?.cpuTime.total ?? 0n) / 1e6;
      const [code, size, total] = out.trim().split(" ");
      if (code === "200" && Number(size) === FILE_BYTES) {
        times.push(Number(total));
      } else {
        failures++;
        if (failures <= 3) log(`  download failed: ${out.trim() || `curl exited ${proc.exitCode}`}`);
      }
    }
  };
  const workers = Promise.all(Array.from({ length: connections }, worker));
  await Bun.sleep(RAMP_S * 1000);
  const w0 = { bytes: bytesWritten(pids()), cpu: cpu(), t: performance.now() };
  await Bun.sleep(duration * 1000);
  const w1 = { bytes: bytesWritten(pids()), cpu: cpu(), t: performance.now() };
  await workers;
  const sliceSeconds = (performance.now() - sliceStart) / 1000;
  const serverCpuS = cpu() - startCpu;
  const othersCores = others();

  const windowBytes = w1.bytes - w0.bytes;
  times.sort((a, b) => a - b);
  const measured: Measured = {
    server,
    round,
    mibPerS: windowBytes / MiB / ((w1.t - w0.t) / 1000),
    clientMibPerS: (times.length * FILE_BYTES) / MiB / sliceSeconds,
    downloads: times.length,
    failures,
    medianDownloadS: times[Math.floor(times.length / 2)] ?? 0,
    // depot-s3 has no wchar of its sends (only its log lines): the slice's CPU over the downloads it finished.
    serverCpuPerGiB:
      server === "depot-s3"
        ? serverCpuS / ((times.length * FILE_BYTES) / GiB)
        : (w1.cpu - w0.cpu) / (windowBytes / GiB),
    serverCpuS,
    clientCpuS,
    mibPerCpuS: (times.length * FILE_BYTES) / MiB / (serverCpuS + clientCpuS),
    othersCores,
  };
  log(
    `${server} round ${round}: ${measured.mibPerS.toFixed(0)} MiB/s over ${duration} s ` +
      `(clients: ${measured.clientMibPerS.toFixed(0)} MiB/s), ${measured.downloads} ` +
      `downloads (median ${measured.medianDownloadS.toFixed(2)} s each), ${failures} failed; server CPU ` +
      `${measured.serverCpuPerGiB.toFixed(2)} s/GiB; ${measured.mibPerCpuS.toFixed(0)} MiB per CPU-s of ` +
      `server + curl; other processes ${measured.othersCores.toFixed(2)} cores`,
  );
  return measured;
}

/** Downloads once to a file and checks its sha256. */
async function verify(what: string, url: string, headers: string[], sha256: string) {
  const path = join(workDir, "verify.bin");
  await run(["curl", "-sSf", "-o", path, ...headers, url]);
  const got = await sha256sum(path);
  rmSync(path);
  if (got !== sha256) throw new Error(`${what}: the download's sha256 is ${got}, expected ${sha256}`);
}

// ---------------------------------------------------------------------------------------------

async function nginxBinary(): Promise<string> {
  const find = () =>
    ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx"].find((p) => {
      try {
        return statSync(p).isFile();
      } catch {
        return false;
      }
    });
  let path = find();
  if (!path) {
    log("installing nginx-light with apt-get…");
    await run(["apt-get", "install", "-y", "-q", "nginx-light"], {
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
    path = find();
  }
  if (!path) throw new Error("nginx is not installed and apt-get did not install it");
  return path;
}

async function machine(): Promise<string[]> {
  const { source, fstype } = await diskOf(workDir);
  return [
    machineLine(),
    `Disk: ${workDir} on ${source} (${fstype}); depot's STORAGE_DIR and nginx's root are the same directory`,
    `Client: ${connections} × ${await curlVersion()} processes; depot: ${binary}`,
  ];
}

async function main(): Promise<number> {
  if (!builtBinary(binary, "npm run build && bun bench/download.ts")) return 1;
  mkdirSync(nginxDir);
  const header = await machine();
  const nginx = await nginxBinary();
  const nginxVersion = (await run([nginx, "-v"])).err.trim();
  header.push(`nginx: ${nginx} (${nginxVersion})`);
  for (const line of header) log(line);

  // 2. depot, the product and the version.
  const { server, token, productId } = await bench.start(); // LOG_LEVEL: the default
  const { origin } = server;
  const auth = ["-H", `Authorization: Bearer ${token}`];

  const source = join(workDir, "release.bin");
  randomFile(source, FILE_BYTES);
  const sha256 = await sha256sum(source);
  const published = await run([
    "curl",
    "-sS",
    ...auth,
    "-F",
    "version_name=1.0.0",
    "-F",
    "title=Bench",
    "-F",
    "changelog=Bench download",
    "-F",
    `file=@${source};type=application/octet-stream`,
    `${origin}/api/products/${productId}/versions`,
  ]);
  rmSync(source);
  const version = (
    JSON.parse(published.out) as { data?: { id: number; sha256: string; download_url: string } }
  ).data;
  if (!version || version.sha256 !== sha256)
    throw new Error(`publishing failed: ${published.out.slice(0, 500)}`);
  const productDir = join(storageDir, "products", String(productId));
  const stored = readdirSync(productDir);
  if (stored.length !== 1 || !stored[0])
    throw new Error(`expected one stored file in ${productDir}: ${stored}`);
  const storedPath = join(productDir, stored[0]);
  if ((await sha256sum(storedPath)) !== sha256) {
    throw new Error(`${storedPath} does not hold the published bytes`);
  }
  log(`published version ${version.id}: ${storedPath}`);
  const depotUrl = `${origin}/api/products/${productId}/versions/${version.id}/download`;

  // 3. nginx on the same file.
  const nginxPort = await freePort();
  const conf = join(nginxDir, "nginx.conf");
  const nginxErr = join(nginxDir, "error.log");
  await writeFile(
    conf,
    [
      // The work directory is private to this user (mkdtemp, 0700); as root the workers run as root to read it.
      process.getuid?.() === 0 ? "user root;" : "",
      `worker_processes ${cpus().length};`,
      "daemon off;",
      `pid ${join(nginxDir, "nginx.pid")};`,
      `error_log ${nginxErr} warn;`,
      "events { worker_connections 1024; }",
      "http {",
      "  access_log off;",
      "  sendfile on;",
      "  tcp_nopush on;",
      "  default_type application/octet-stream;",
      `  client_body_temp_path ${join(nginxDir, "body")};`,
      `  server { listen 127.0.0.1:${nginxPort}; root ${productDir}; }`,
      "}",
      "",
    ].join("\n"),
  );
  const nginxStderr = join(nginxDir, "stderr.log");
  const nginxProc = track(
    Bun.spawn([nginx, "-e", nginxErr, "-p", nginxDir, "-c", conf], {
      cwd: nginxDir,
      stdin: "ignore",
      stdout: "ignore",
      stderr: Bun.file(nginxStderr),
    }),
  );
  const nginxUrl = `http://127.0.0.1:${nginxPort}/${stored[0]}`;
  // HEAD, any status: it is the 100 MiB file, and nginx answering at all is enough.
  await waitUntilUp(nginxUrl, nginxProc, {
    what: "nginx",
    method: "HEAD",
    status: null,
    detail: () => textOf(nginxStderr),
  });

  // 4. Check, warm up, measure.
  await verify("depot", depotUrl, auth, sha256);
  await verify("nginx", nginxUrl, [], sha256);
  const depotPids = () => [server.proc.pid];
  const nginxPids = () => [nginxProc.pid, ...children(nginxProc.pid)];
  log(`nginx workers: ${children(nginxProc.pid).join(", ")}`);
  await Promise.all(Array.from({ length: connections }, () => run(curlArgs(depotUrl, auth))));
  await Promise.all(Array.from({ length: connections }, () => run(curlArgs(nginxUrl, []))));
  const logLinesBefore = await server.stdoutLines();

  // --bare: the same file from a bare Bun.serve (the bench's own Bun, the version compiled into depot).
  let bare: { proc: Subprocess; url: string } | null = null;
  if (opts.bare) {
    const port = await freePort();
    const script = join(workDir, "bare.ts");
    await writeFile(
      script,
      `const file = ${JSON.stringify(storedPath)};\n` +
        `Bun.serve({ port: ${port}, hostname: "127.0.0.1", fetch: () => new Response(Bun.file(file)) });\n`,
    );
    const proc = track(
      Bun.spawn([process.execPath, script], { cwd: workDir, stdout: "ignore", stderr: "inherit" }),
    );
    bare = { proc, url: `http://127.0.0.1:${port}/` };
    await waitUntilUp(bare.url, proc, { what: "bare Bun.serve", method: "HEAD", status: null });
    await verify("bare Bun.serve", bare.url, [], sha256);
    await Promise.all(Array.from({ length: connections }, () => run(curlArgs(bare?.url ?? "", []))));
  }

  // --s3: a second depot on the same database, its releases in a bucket; the same file published to it.
  let objectStore: { server: Awaited<ReturnType<typeof bench.another>>; url: string } | null = null;
  if (opts.s3) {
    const s3 = await startS3(workDir);
    header.push(`Store of depot-s3: ${s3.description}, STORAGE_DOWNLOADS=proxy`);
    log(header.at(-1) ?? "");
    const s3Server = await bench.another("s3", { ...s3.settings, STORAGE_DOWNLOADS: "proxy" });
    const again = join(workDir, "release-s3.bin");
    randomFile(again, FILE_BYTES);
    const s3Sha = await sha256sum(again);
    const s3Published = await run([
      "curl",
      "-sS",
      ...auth,
      "-F",
      "version_name=1.0.0-s3",
      "-F",
      "title=Bench",
      "-F",
      "changelog=Bench download from object storage",
      "-F",
      `file=@${again};type=application/octet-stream`,
      `${s3Server.origin}/api/products/${productId}/versions`,
    ]);
    rmSync(again);
    const s3Version = (JSON.parse(s3Published.out) as { data?: { id: number; sha256: string } }).data;
    if (!s3Version || s3Version.sha256 !== s3Sha)
      throw new Error(`publishing to the bucket failed: ${s3Published.out.slice(0, 500)}`);
    const url = `${s3Server.origin}/api/products/${productId}/versions/${s3Version.id}/download`;
    await verify("depot-s3", url, auth, s3Sha);
    await Promise.all(Array.from({ length: connections }, () => run(curlArgs(url, auth))));
    objectStore = { server: s3Server, url };
  }

  const results: Measured[] = [];
  // Alternating slices, depot first in odd rounds and last in even ones, so that all see the same
  // (changing) load from the rest of the machine.
  for (let round = 1; round <= rounds; round++) {
    const slices = [
      () => measure("depot", round, depotUrl, auth, depotPids),
      () => measure("nginx", round, nginxUrl, [], nginxPids),
    ];
    const b = bare;
    if (b) slices.push(() => measure("bare", round, b.url, [], () => [b.proc.pid]));
    const o = objectStore;
    if (o) slices.push(() => measure("depot-s3", round, o.url, auth, () => [o.server.proc.pid]));
    if (round % 2 === 0) slices.reverse();
    for (const slice of slices) results.push(await slice());
  }
  if (bare) await stop(bare.proc, "SIGKILL");
  const logLines = (await server.stdoutLines()) - logLinesBefore;
  const depotRss = memoryMiB(server.proc.pid, "VmHWM") ?? Number.NaN;

  const objectStoreRss = objectStore ? (memoryMiB(objectStore.server.proc.pid, "VmHWM") ?? Number.NaN) : 0;
  await stop(nginxProc, "SIGQUIT");
  await stop(server.proc);
  if (objectStore) await stop(objectStore.server.proc);

  // Report.
  const of = (s: Server) => results.filter((r) => r.server === s);
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  const depotMean = mean(of("depot").map((r) => r.mibPerS));
  const nginxMean = mean(of("nginx").map((r) => r.mibPerS));
  const ratio = depotMean / nginxMean;
  const pairRatios = Array.from(
    { length: rounds },
    (_, i) => (of("depot")[i]?.mibPerS ?? 0) / (of("nginx")[i]?.mibPerS ?? 1),
  );
  const depotPerCpu = median(of("depot").map((r) => r.mibPerCpuS));
  const nginxPerCpu = median(of("nginx").map((r) => r.mibPerCpuS));
  const row = (r: Measured) =>
    `| ${r.server} | ${r.round} | ${r.server === "depot-s3" ? "–" : `${r.mibPerS.toFixed(0)} MiB/s`} | ` +
    `${r.clientMibPerS.toFixed(0)} MiB/s | ${r.downloads} | ${r.failures} | ` +
    `${r.medianDownloadS.toFixed(2)} s | ${r.serverCpuPerGiB.toFixed(2)} | ${r.serverCpuS.toFixed(1)} s | ` +
    `${r.clientCpuS.toFixed(1)} s | ${r.mibPerCpuS.toFixed(0)} | ${r.othersCores.toFixed(2)} |`;
  const s3Mean = objectStore ? mean(of("depot-s3").map((r) => r.clientMibPerS)) : 0;
  const depotClientMean = mean(of("depot").map((r) => r.clientMibPerS));
  const objectStoreLine = objectStore
    ? `depot-s3 (proxy from the bucket), clients' view: mean ${s3Mean.toFixed(0)} MiB/s = ` +
      `${(s3Mean / depotClientMean).toFixed(2)} × depot from local disk (${depotClientMean.toFixed(0)} MiB/s, same ` +
      `measure); per CPU-second ${median(of("depot-s3").map((r) => r.mibPerCpuS)).toFixed(0)} MiB; its ` +
      `VmHWM ${objectStoreRss.toFixed(0)} MiB (s3rver, in its own process, serves every byte it sends)`
    : null;
  const lines = [
    "",
    `depot download — Bun ${Bun.version} (bench), ${new Date().toISOString()}`,
    ...header,
    `File: 100 MiB (${FILE_BYTES} bytes), ${connections} connections, ${rounds} slices of ${duration} s per ` +
      `server; depot at the default LOG_LEVEL (${logLines} log lines during the measurements)`,
    "",
    "| server | slice | aggregate | clients' view | downloads | failed | median per download | server CPU s/GiB | server CPU | curl CPU | MiB per CPU-s (server + curl) | other load (cores) |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...results.map(row),
    "",
    `mean depot ${depotMean.toFixed(0)} MiB/s, nginx ${nginxMean.toFixed(0)} MiB/s: ratio ${ratio.toFixed(2)} ` +
      `(target ≥ ${TARGET_RATIO}): ${ratio >= TARGET_RATIO ? "met" : "MISSED"}; ` +
      `per adjacent pair of slices ${pairRatios.map((r) => r.toFixed(2)).join(", ")} (median ${median(pairRatios).toFixed(2)})`,
    `per CPU-second of server + clients (less sensitive to other load): depot ${depotPerCpu.toFixed(0)}, ` +
      `nginx ${nginxPerCpu.toFixed(0)} MiB: ratio ${(depotPerCpu / nginxPerCpu).toFixed(2)}`,
    ...(bare
      ? [
          `bare Bun.serve (Bun.file, nothing else): mean ${mean(of("bare").map((r) => r.mibPerS)).toFixed(0)} MiB/s = ` +
            `${(mean(of("bare").map((r) => r.mibPerS)) / nginxMean).toFixed(2)} × nginx; depot = ` +
            `${(depotMean / mean(of("bare").map((r) => r.mibPerS))).toFixed(2)} × bare; per CPU-second ` +
            `${median(of("bare").map((r) => r.mibPerCpuS)).toFixed(0)} MiB`,
        ]
      : []),
    ...(objectStoreLine ? [objectStoreLine] : []),
    `depot VmHWM over the whole run ${depotRss.toFixed(0)} MiB; load average at end ${loadAverage()}`,
  ];
  console.log(lines.join("\n"));
  return 0;
}

await runMain(main);
