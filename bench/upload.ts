// Publishing a large release file: throughput and the server's memory (bench/README.md, issue 5).
//
//   npm run build && bun bench/upload.ts [options]
//
//   --runs N          1 GiB multipart uploads measured (default 3); dd runs before, between and after
//   --dir PATH        parent of the work directory (default the OS temp dir); it must be a real disk
//   --pg URL          PostgreSQL server, without a database name (default postgres://root@127.0.0.1:5432)
//   --binary PATH     the depot binary (default dist/depot; this script builds nothing)
//   --bare            also upload the same 1 GiB N times to a bare Bun.serve, one step of depot's upload
//                     path at a time (and two faster ways to write), to see where the time goes
//   --s3              object-storage mode: depot stores the releases in a bucket of s3rver, run in its
//                     own process with its objects in the work directory (bench/lib/s3.ts), instead of
//                     STORAGE_DIR; the same uploads, the same memory measurements (issue 13)
//   --tus             also publish the 1 GiB file N times through `depot publish` (the resumable tus
//                     path: the same binary as a client process, default chunk size), each right after
//                     a multipart upload, and compare the two (issue 14)
//
// What it does, everything on ONE file system (the work directory holds the generated files,
// DATA_DIR, STORAGE_DIR and dd's file; the script refuses tmpfs):
// 1. Database `depot_bench_files` (dropped and re-created), `depot migrate`, an admin and its token
//    through the CLI, `depot serve --no-workers` at the default LOG_LEVEL with MAX_UPLOAD_BYTES 3 GiB
//    (the 2 GiB upload needs more than the 2 GiB default), and a product through the admin API.
// 2. Random files: 1 GiB and 2 GiB, and a 50 MiB one wrapped as the JSON publish body (base64),
//    each hashed with `sha256sum`; then `sync`, so that no dirty page is written back during a
//    measurement. One small multipart publish warms the route up (not measured).
// 3. Reference: `dd if=/dev/zero of=<work dir>/dd.bin bs=1M count=1024 conv=fsync`, before the 1 GiB
//    uploads, between them and after them; the median is the reference.
// 4. Each upload is one `curl` (it streams the file from disk) to POST /api/products/P/versions:
//    the 1 GiB file N times, the 2 GiB file once, the 50 MiB base64 JSON body 6 times in a row
//    (`--data-binary @file`), and the RSS 10 s after the last of those.
//    Before each upload the server's peak RSS is reset (`echo 5 > /proc/PID/clear_refs`, needs root
//    or the same user); during it VmRSS is sampled every 50 ms; after it VmHWM is read (the kernel's
//    peak since the reset, so a spike between two samples is not missed). The response must be 201
//    with the sha256 and file_size of the file sent. Throughput is the file's size over curl's
//    time_total. Also reported: depot's CPU time over the upload, curl's own CPU time, and the cores
//    every other process (curl included) kept busy meanwhile, from /proc/stat; this is a shared machine.
// 5. --tus: after each 1 GiB multipart upload, `depot publish big-1g.bin --product P --version tus-N
//    … --server http://127.0.0.1:PORT --token T --json` with the default chunk size, measured the same
//    way (sync, VmHWM reset, VmRSS sampled, depot's CPU), with the client's wall time from spawn to
//    exit as its time and its CPU from its rusage. Its JSON must say "published" with the file's
//    sha256 and size. Reported: the ratio of the tus median to the multipart median (target ≥ 0.8)
//    and the worst peak RSS over idle (target < 150 MiB).
// The work directory (about 9 GiB at the end), the database and the processes are gone when this
// exits, however it exits.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { builtBinary } from "./lib/depot.ts";
import { randomFile, sha256sum } from "./lib/files.ts";
import { curlVersion, diskOf, loadAverage, machineLine } from "./lib/machine.ts";
import { run, runMain, stop, track } from "./lib/processes.ts";
import { cpuSeconds, memoryMiB, othersMeter, sumCpu } from "./lib/procfs.ts";
import { ReleaseBench } from "./lib/releases.ts";
import { startS3 } from "./lib/s3.ts";
import { freePort, GiB, log, MiB, median, secondsSince } from "./lib.ts";

const SAMPLE_MS = 50;
/** Several in a row: does the RSS a base64 publish leaves behind keep growing? */
const BASE64_RUNS = 6;
/** How long the server is left idle after the base64 uploads before its RSS is read again. */
const SETTLE_MS = 10_000;
const TARGET_RSS_MIB = 150;
const TARGET_DD_SHARE = 0.5;
/** `depot publish` (tus) against multipart throughput, medians of the same run (issue 14). */
const TARGET_TUS_RATIO = 0.8;

const { values: opts } = parseArgs({
  options: {
    runs: { type: "string", default: "3" },
    dir: { type: "string" },
    pg: { type: "string", default: "postgres://root@127.0.0.1:5432" },
    binary: { type: "string" },
    bare: { type: "boolean", default: false },
    s3: { type: "boolean", default: false },
    tus: { type: "boolean", default: false },
  },
});
const runs = Math.max(1, Number.parseInt(opts.runs ?? "3", 10) || 3);
const bench = new ReleaseBench("upload", opts);
const { binary, workDir } = bench;
const filesDir = join(workDir, "files");

// ---------------------------------------------------------------------------------------------
// The server's memory and CPU, from /proc.

function status(pid: number, field: "VmRSS" | "VmHWM"): number {
  const mib = memoryMiB(pid, field);
  if (mib === null) throw new Error(`no ${field} in /proc/${pid}/status`);
  return mib;
}

/** CPU seconds of a process that has to be there; NaN shows in the report if it is not. */
const processCpu = (pid: number) => cpuSeconds(pid) ?? Number.NaN;

/** Samples VmRSS every SAMPLE_MS until stopped; the kernel's VmHWM is reset first. */
function rssSampler(pid: number) {
  writeFileSync(`/proc/${pid}/clear_refs`, "5"); // resets VmHWM to the current RSS
  const idle = status(pid, "VmRSS");
  const t0 = performance.now();
  const samples: { t: number; rss: number }[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      try {
        samples.push({ t: performance.now() - t0, rss: status(pid, "VmRSS") });
      } catch {
        return; // the process is gone; the caller reports why
      }
      await Bun.sleep(SAMPLE_MS);
    }
  })();
  return {
    idle,
    async stop() {
      stopped = true;
      await loop;
      const peak = samples.reduce((max, s) => (s.rss > max.rss ? s : max), { t: 0, rss: idle });
      return {
        idle,
        peak: peak.rss,
        peakAtS: peak.t / 1000,
        hwm: status(pid, "VmHWM"),
        after: status(pid, "VmRSS"),
        samples: samples.length,
        // RSS at each second, to see whether it grows with the bytes received or stays flat.
        perSecond: samples.filter((_, i) => i % Math.round(1000 / SAMPLE_MS) === 0).map((s) => s.rss),
      };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The reference.

/** dd from /dev/zero with fsync: MiB/s as dd itself reports bytes and seconds. */
async function ddReference(): Promise<number> {
  const target = join(workDir, "dd.bin");
  await run(["sync"]);
  const others = othersMeter(() => 0);
  const { err } = await run(["dd", "if=/dev/zero", `of=${target}`, "bs=1M", "count=1024", "conv=fsync"]);
  const busy = others();
  rmSync(target, { force: true });
  await run(["sync"]);
  const match = /(\d+) bytes .* copied, ([\d.]+) s/.exec(err);
  if (!match) throw new Error(`cannot parse dd output:\n${err}`);
  const mibPerS = Number(match[1]) / MiB / Number(match[2]);
  log(`dd conv=fsync: ${mibPerS.toFixed(0)} MiB/s (machine busy ${busy.toFixed(2)} cores, dd included)`);
  return mibPerS;
}

// ---------------------------------------------------------------------------------------------
// Uploads.

interface Upload {
  label: string;
  bytes: number;
  seconds: number;
  mibPerS: number;
  idle: number;
  peak: number;
  peakAtS: number;
  hwm: number;
  after: number;
  serverCpuS: number;
  /** The client's own CPU seconds (curl, or `depot publish`), all its threads. */
  clientCpuS: number;
  /** Cores busy with other work (other processes, including curl) during the upload. */
  othersCores: number;
  perSecond: number[];
}

/** One curl upload, measured; `body` is curl's arguments for the body. */
async function upload(
  label: string,
  serverPid: number,
  url: string,
  token: string,
  body: string[],
  expect: { bytes: number; sha256: string } | null,
): Promise<Upload> {
  await run(["sync"]);
  const respPath = join(workDir, "resp.json");
  const sampler = rssSampler(serverPid);
  const cpu0 = processCpu(serverPid);
  const others = othersMeter(() => sumCpu([serverPid]));
  const { out, cpuS: clientCpuS } = await run([
    "curl",
    "-sS",
    "-o",
    respPath,
    "-w",
    "%{http_code} %{time_total}",
    "-H",
    `Authorization: Bearer ${token}`,
    "-H",
    "Expect:", // no 100-continue round trip; the server answers before reading anyway
    ...body,
    url,
  ]);
  const serverCpuS = processCpu(serverPid) - cpu0;
  const othersCores = others();
  const mem = await sampler.stop();
  const [code, total] = out.trim().split(" ");
  const response = readFileSync(respPath, "utf8");
  if (code !== "201") throw new Error(`${label}: HTTP ${code}: ${response.slice(0, 500)}`);
  const data = (JSON.parse(response) as { data: { sha256: string; file_size: number } }).data;
  if (expect && (data.sha256 !== expect.sha256 || data.file_size !== expect.bytes)) {
    throw new Error(
      `${label}: the server stored sha256 ${data.sha256} (${data.file_size} bytes), ` +
        `sha256sum says ${expect.sha256} (${expect.bytes} bytes)`,
    );
  }
  const seconds = Number(total);
  const bytes = expect?.bytes ?? data.file_size;
  const result = {
    label,
    bytes,
    seconds,
    mibPerS: bytes / MiB / seconds,
    serverCpuS,
    clientCpuS,
    othersCores,
    ...mem,
  };
  logUpload(result);
  return result;
}

function logUpload(u: Upload, extra = "") {
  log(
    `${u.label}: ${u.seconds.toFixed(2)} s, ${u.mibPerS.toFixed(0)} MiB/s; RSS idle ${u.idle.toFixed(0)}, ` +
      `peak sampled ${u.peak.toFixed(0)} at ${u.peakAtS.toFixed(1)} s, VmHWM ${u.hwm.toFixed(0)}, ` +
      `after ${u.after.toFixed(0)} MiB; depot CPU ${u.serverCpuS.toFixed(2)} s, client CPU ` +
      `${u.clientCpuS.toFixed(2)} s; other processes ${u.othersCores.toFixed(2)} cores; sha256 ok${extra}` +
      `\n  RSS per second: ${u.perSecond.map((n) => n.toFixed(0)).join(" ")}`,
  );
}

/** What `depot publish --json` prints (src/cli/publish.ts), as far as the benchmark checks it. */
interface PublishResult {
  status: string;
  seconds: number;
  version: { sha256: string; file_size: number };
}

/**
 * --tus: one `depot publish` of `path` as version `version`, measured as `upload` measures curl. Its
 * time is the client process's, spawn to exit: that includes starting the binary, listing the
 * product's versions, creating the upload and the publish request after the bytes, which a user of
 * the command waits for too (the client's own upload-only seconds are logged beside it).
 */
async function publish(
  label: string,
  serverPid: number,
  cli: { origin: string; token: string; productId: number },
  path: string,
  version: string,
  expect: { bytes: number; sha256: string },
): Promise<Upload> {
  await run(["sync"]);
  const sampler = rssSampler(serverPid);
  const cpu0 = processCpu(serverPid);
  // The client is started after this; it counts among the other processes, as curl does.
  const others = othersMeter(() => sumCpu([serverPid]));
  const t0 = performance.now();
  const { out, cpuS: clientCpuS } = await run(
    [
      binary,
      "publish",
      path,
      "--product",
      String(cli.productId),
      "--version",
      version,
      "--title",
      "t",
      "--changelog",
      "c",
      "--server",
      cli.origin,
      "--token",
      cli.token,
      "--json",
    ],
    { cwd: workDir },
  );
  const seconds = secondsSince(t0);
  const serverCpuS = processCpu(serverPid) - cpu0;
  const othersCores = others();
  const mem = await sampler.stop();
  const answer = JSON.parse(out) as PublishResult;
  const { sha256, file_size } = answer.version;
  if (answer.status !== "published" || sha256 !== expect.sha256 || file_size !== expect.bytes) {
    throw new Error(
      `${label}: depot publish answered ${answer.status} with sha256 ${sha256} (${file_size} bytes), ` +
        `sha256sum says ${expect.sha256} (${expect.bytes} bytes)`,
    );
  }
  const result = {
    label,
    bytes: expect.bytes,
    seconds,
    mibPerS: expect.bytes / MiB / seconds,
    serverCpuS,
    clientCpuS,
    othersCores,
    ...mem,
  };
  logUpload(result, `; the client's own upload phase ${answer.seconds.toFixed(2)} s`);
  return result;
}

/**
 * --bare: where the time goes. A bare Bun.serve (no Elysia, no auth, no database) takes the same 1 GiB
 * in steps, each adding one thing to the previous one; `receive` and `multipart` call depot's own
 * ReleaseStore.receive and readUpload from src/. Each answers its own time and that of the final fsync.
 */
const BARE_VARIANTS = [
  "discard",
  "hash",
  "write",
  "receive",
  "pipelined",
  "pipelined-overlap",
  "multipart",
] as const;
type BareVariant = (typeof BARE_VARIANTS)[number];
const BARE_WHAT: Record<BareVariant, string> = {
  discard: "raw body read and dropped (Bun's request streaming alone)",
  hash: "raw body, SHA-256 per chunk, nothing written",
  write: "raw body, `await fh.write(chunk)` per chunk, fsync; no hash",
  receive: "raw body into depot's own `ReleaseStore.receive` (SHA-256 + awaited write per chunk + fsync)",
  pipelined:
    "as `receive`, but positioned writes `fh.write(chunk, 0, n, pos)` not awaited one by one: up to 8 MiB in flight while reading goes on",
  "pipelined-overlap":
    "as `pipelined`, plus an unawaited `fh.datasync()` every 64 MiB (one at a time), so the final fsync has little left",
  multipart:
    "multipart into depot's own `readUpload` (Readable.fromWeb → busboy → `receive`); no Elysia, auth or DB",
};
const bareServer = (repo: string) => `
import { open } from "node:fs/promises";
import { join } from "node:path";
import { ReleaseStore } from ${JSON.stringify(join(repo, "src/storage/releases.ts"))};
import { readUpload } from ${JSON.stringify(join(repo, "src/features/versions/upload.ts"))};
import { createLogger } from ${JSON.stringify(join(repo, "src/log.ts"))};
const dir = process.env.BARE_DIR;
const store = new ReleaseStore(join(dir, "bare-store"), createLogger("error"));
const limits = { maxUploadBytes: 4 * 1024 ** 3, maxJsonUploadBytes: 64 * 1024 ** 2 };
const MiB = 1024 * 1024;
let n = 0;
Bun.serve({
  port: Number(process.env.BARE_PORT), hostname: "127.0.0.1", maxRequestBodySize: 4 * 1024 ** 3,
  async fetch(request) {
    const variant = new URL(request.url).pathname.slice(1);
    const t0 = performance.now();
    let size = 0, chunks = 0, syncMs = null; // depot's own code fsyncs inside; not timed apart
    let sha256 = null;
    if (variant === "receive") {
      await using file = await store.receive(request.body, limits.maxUploadBytes, "products/0/" + crypto.randomUUID());
      size = file.size; sha256 = file.sha256;
    } else if (variant === "multipart") {
      await using file = (await readUpload(request, store, limits, "products/0/" + crypto.randomUUID())).file;
      size = file?.size ?? 0; sha256 = file?.sha256 ?? null;
    } else {
      const writes = variant !== "discard" && variant !== "hash";
      const hash = variant === "write" || variant === "discard" ? null : new Bun.CryptoHasher("sha256");
      const path = join(dir, "bare-" + n++);
      const fh = writes ? await open(path, "wx") : null;
      const pipelined = variant.startsWith("pipelined");
      const overlap = variant === "pipelined-overlap";
      const inflight = new Set();
      let inflightBytes = 0, unsynced = 0, syncing = null;
      for await (const chunk of request.body) {
        const length = chunk.byteLength;
        const position = size;
        size += length; chunks++;
        hash?.update(chunk);
        if (!fh) continue;
        if (!pipelined) { await fh.write(chunk); continue; }
        const write = fh.write(chunk, 0, length, position).then(() => { inflight.delete(write); inflightBytes -= length; });
        inflight.add(write); inflightBytes += length; unsynced += length;
        if (overlap && unsynced >= 64 * MiB && !syncing) {
          unsynced = 0;
          syncing = fh.datasync().finally(() => { syncing = null; });
        }
        while (inflightBytes > 8 * MiB) await Promise.race(inflight);
      }
      if (fh) {
        await Promise.all(inflight);
        if (syncing) await syncing;
        const s = performance.now(); await fh.sync(); syncMs = performance.now() - s;
        await fh.close();
        await Bun.file(path).delete();
      } else {
        syncMs = 0;
      }
      sha256 = hash?.digest("hex") ?? null;
    }
    return Response.json({ size, chunks, ms: performance.now() - t0, syncMs, sha256 });
  },
});
console.log("ready");
`;

interface BareResult {
  variant: BareVariant;
  seconds: number;
  serverMs: number;
  /** The final fsync's time; null where depot's own code does it inside. */
  syncMs: number | null;
  cpu: number;
  growth: number;
}

async function bareUploads(
  path: string,
  bytes: number,
  sha256: string,
  times: number,
): Promise<BareResult[]> {
  const port = await freePort();
  const script = join(workDir, "bare.ts");
  await writeFile(script, bareServer(fileURLToPath(new URL("..", import.meta.url))));
  const proc = track(
    Bun.spawn([process.execPath, script], {
      cwd: workDir,
      env: { ...process.env, BARE_DIR: filesDir, BARE_PORT: String(port) },
      stdout: "pipe",
      stderr: "inherit",
    }),
  );
  const results: BareResult[] = [];
  try {
    const reader = proc.stdout.getReader();
    await reader.read(); // "ready"
    for (let i = 0; i < times; i++) {
      for (const variant of BARE_VARIANTS) {
        await run(["sync"]);
        const sampler = rssSampler(proc.pid);
        const cpu0 = processCpu(proc.pid);
        const body =
          variant === "multipart"
            ? ["-F", `file=@${path};type=application/octet-stream`]
            : // -T streams the file (--data-binary @file would first read it whole into curl's memory)
              ["-H", "Content-Type: application/octet-stream", "-X", "POST", "-T", path];
        const { out } = await run([
          "curl",
          "-sS",
          "-w",
          "\\n%{http_code} %{time_total}",
          "-H",
          "Expect:",
          ...body,
          `http://127.0.0.1:${port}/${variant}`,
        ]);
        const cpu = processCpu(proc.pid) - cpu0;
        const mem = await sampler.stop();
        const [json = "", status = ""] = out.trim().split("\n");
        const [code, total] = status.split(" ");
        const answer = JSON.parse(json) as {
          size: number;
          chunks: number;
          ms: number;
          syncMs: number | null;
          sha256: string | null;
        };
        if (code !== "200" || answer.size !== bytes || (answer.sha256 !== null && answer.sha256 !== sha256)) {
          throw new Error(`bare ${variant}: ${code} ${json}`);
        }
        const result = {
          variant,
          seconds: Number(total),
          serverMs: answer.ms,
          syncMs: answer.syncMs,
          cpu,
          growth: Math.max(mem.peak, mem.hwm) - mem.idle,
        };
        results.push(result);
        log(
          `bare ${variant}: ${result.seconds.toFixed(2)} s, ${(bytes / MiB / result.seconds).toFixed(0)} MiB/s, ` +
            `final fsync ${answer.syncMs === null ? "(inside)" : `${answer.syncMs.toFixed(0)} ms`}, CPU ${cpu.toFixed(2)} s, RSS +${result.growth.toFixed(0)} MiB` +
            (answer.chunks
              ? `, ${answer.chunks} chunks (${(bytes / answer.chunks / 1024).toFixed(0)} KiB avg)`
              : ""),
        );
      }
    }
    return results;
  } finally {
    await stop(proc, "SIGKILL");
  }
}

// ---------------------------------------------------------------------------------------------

async function machine(): Promise<string[]> {
  const { source, fstype } = await diskOf(workDir);
  const device = source.replace(/^\/dev\//, "").replace(/\d+$/, "");
  let rotational = "?";
  try {
    rotational = readFileSync(`/sys/block/${device}/queue/rotational`, "utf8").trim();
  } catch {}
  return [
    machineLine(),
    `Disk: ${workDir} on ${source} (${fstype}, rotational=${rotational}); generated files, ` +
      `STORAGE_DIR and dd's file all on it`,
    `Client: ${await curlVersion()}; depot: ${binary}`,
  ];
}

async function main(): Promise<number> {
  if (!builtBinary(binary, `npm run build && bun bench/upload.ts${opts.tus ? " --tus" : ""}`)) return 1;
  mkdirSync(filesDir);
  const header = await machine();
  for (const line of header) log(line);

  // 1. Database, admin, server, product.
  // MAX_UPLOAD_BYTES: the 2 GiB upload needs more than the 2 GiB default.
  const s3 = opts.s3 ? await startS3(workDir) : null;
  if (s3) {
    header.push(`Store: ${s3.description}, depot's STORAGE_URL; not STORAGE_DIR`);
    log(header.at(-1) ?? "");
  }
  const { server, token, productId } = await bench.start({
    MAX_UPLOAD_BYTES: String(3 * GiB),
    ...s3?.settings,
  });
  const publishUrl = `${server.origin}/api/products/${productId}/versions`;

  // 2. Files.
  log("generating the random files and their sha256…");
  const small = join(filesDir, "small.bin");
  const big1 = join(filesDir, "big-1g.bin");
  const big2 = join(filesDir, "big-2g.bin");
  const b64Source = join(filesDir, "b64.bin");
  const b64Json = join(filesDir, "b64.json");
  randomFile(small, MiB);
  randomFile(big1, GiB);
  randomFile(big2, 2 * GiB);
  randomFile(b64Source, 50 * MiB);
  const b64Sha = await sha256sum(b64Source);
  await writeFile(
    b64Json,
    JSON.stringify({
      version_name: "b64-VERSION",
      title: "Base64",
      changelog: "Bench",
      file: { filename: "b64.bin", content: readFileSync(b64Source).toString("base64") },
    }),
  );
  rmSync(b64Source);
  const sha1 = await sha256sum(big1);
  const sha2 = await sha256sum(big2);
  await run(["sync"]);

  let version = 0;
  const multipart = (path: string) => [
    "-F",
    `version_name=v${++version}`,
    "-F",
    `title=Bench ${version}`,
    "-F",
    "changelog=Bench upload",
    "-F",
    `file=@${path};type=application/octet-stream`,
  ];
  const warm = await upload(
    "warm-up 1 MiB (not counted)",
    server.proc.pid,
    publishUrl,
    token,
    multipart(small),
    null,
  );
  void warm;

  // 3 and 4. dd, the 1 GiB uploads with dd between them, the 2 GiB upload, the base64 uploads.
  // With --tus each multipart upload is followed by a publish of the same file: the two alternate,
  // so that a slow spell of the shared disk or CPU falls on both rather than on one of them.
  const dd: number[] = [await ddReference()];
  const oneGiB: Upload[] = [];
  const tus: Upload[] = [];
  for (let i = 0; i < runs; i++) {
    oneGiB.push(
      await upload(`1 GiB multipart ${i + 1}/${runs}`, server.proc.pid, publishUrl, token, multipart(big1), {
        bytes: GiB,
        sha256: sha1,
      }),
    );
    if (opts.tus) {
      tus.push(
        await publish(
          `1 GiB depot publish (tus) ${i + 1}/${runs}`,
          server.proc.pid,
          { origin: server.origin, token, productId },
          big1,
          `tus-${i + 1}`,
          { bytes: GiB, sha256: sha1 },
        ),
      );
    }
    dd.push(await ddReference());
  }
  const twoGiB = await upload("2 GiB multipart", server.proc.pid, publishUrl, token, multipart(big2), {
    bytes: 2 * GiB,
    sha256: sha2,
  });
  const base64: Upload[] = [];
  for (let i = 0; i < BASE64_RUNS; i++) {
    // The JSON body names a fresh version each time.
    const jsonPath = join(filesDir, `b64-${i}.json`);
    await writeFile(jsonPath, readFileSync(b64Json, "utf8").replace("b64-VERSION", `b64-${i}`));
    base64.push(
      await upload(
        `50 MiB JSON base64 ${i + 1}/${BASE64_RUNS}`,
        server.proc.pid,
        publishUrl,
        token,
        ["-H", "Content-Type: application/json", "--data-binary", `@${jsonPath}`],
        { bytes: 50 * MiB, sha256: b64Sha },
      ),
    );
    rmSync(jsonPath);
  }
  // Is what the base64 uploads left behind garbage that is collected when idle, or kept?
  await Bun.sleep(SETTLE_MS);
  const settled = status(server.proc.pid, "VmRSS");
  log(`RSS ${SETTLE_MS / 1000} s after the last base64 upload: ${settled.toFixed(0)} MiB`);
  const bare = opts.bare ? await bareUploads(big1, GiB, sha1, runs) : null;
  await stop(server.proc);

  // Report.
  const ddMedian = median(dd);
  const upMedian = median(oneGiB.map((u) => u.mibPerS));
  const growth = (u: Upload) => Math.max(u.peak, u.hwm) - u.idle;
  const worstGrowth = Math.max(...oneGiB.map(growth));
  const row = (u: Upload) =>
    `| ${u.label} | ${u.seconds.toFixed(2)} s | ${u.mibPerS.toFixed(0)} MiB/s | ${u.idle.toFixed(0)} | ` +
    `${u.peak.toFixed(0)} | ${u.hwm.toFixed(0)} | +${growth(u).toFixed(0)} | ` +
    `${u.after.toFixed(0)} | ${u.serverCpuS.toFixed(1)} s | ${u.clientCpuS.toFixed(1)} s | ${u.othersCores.toFixed(1)} |`;
  // Alternating rows, as they ran.
  const oneGiBRows = oneGiB.flatMap((u, i) => (tus[i] ? [u, tus[i]] : [u]));
  const lines = [
    "",
    `depot upload${s3 ? " to object storage (--s3)" : ""} — Bun ${Bun.version} (bench), ${new Date().toISOString()}`,
    ...header,
    "",
    `dd if=/dev/zero bs=1M count=1024 conv=fsync: ${dd.map((n) => n.toFixed(0)).join(", ")} MiB/s ` +
      `(median ${ddMedian.toFixed(0)})`,
    "",
    `| upload | time (${tus.length ? "curl; depot publish: spawn to exit" : "curl"}) | throughput | RSS idle MiB | peak sampled MiB | VmHWM MiB | peak − idle MiB | RSS after MiB | depot CPU | client CPU | other load (cores, client included) |`,
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...oneGiBRows.map(row),
    row(twoGiB),
    ...base64.map(row),
    "",
    `1 GiB median ${upMedian.toFixed(0)} MiB/s = ${((upMedian / ddMedian) * 100).toFixed(0)} % of dd ` +
      `(target ≥ ${TARGET_DD_SHARE * 100} %): ${upMedian >= TARGET_DD_SHARE * ddMedian ? "met" : "MISSED"}`,
    `1 GiB worst peak − idle ${worstGrowth.toFixed(0)} MiB (target < ${TARGET_RSS_MIB}): ` +
      `${worstGrowth < TARGET_RSS_MIB ? "met" : "MISSED"}`,
    `2 GiB: 201, sha256 verified, ${twoGiB.seconds.toFixed(1)} s, peak RSS ` +
      `${Math.max(twoGiB.peak, twoGiB.hwm).toFixed(0)} MiB (+${(Math.max(twoGiB.peak, twoGiB.hwm) - twoGiB.idle).toFixed(0)})`,
    `50 MiB base64: peak − idle ${Math.min(...base64.map((u) => Math.max(u.peak, u.hwm) - u.idle)).toFixed(0)}–` +
      `${Math.max(...base64.map((u) => Math.max(u.peak, u.hwm) - u.idle)).toFixed(0)} MiB per upload; highest RSS ` +
      `${Math.max(...base64.map((u) => Math.max(u.peak, u.hwm))).toFixed(0)} MiB; ${settled.toFixed(0)} MiB ` +
      `${SETTLE_MS / 1000} s after the last one`,
  ];
  if (tus.length) {
    const tusMedian = median(tus.map((u) => u.mibPerS));
    const ratio = tusMedian / upMedian;
    const tusGrowth = Math.max(...tus.map(growth));
    lines.push(
      `depot publish (tus) 1 GiB median ${tusMedian.toFixed(0)} MiB/s against multipart ${upMedian.toFixed(0)}: ` +
        `${ratio.toFixed(2)} × (target ≥ ${TARGET_TUS_RATIO}): ${ratio >= TARGET_TUS_RATIO ? "met" : "MISSED"}` +
        (s3 ? " — with --s3; the target is about the default disk mode" : ""),
      `depot publish (tus) worst peak − idle ${tusGrowth.toFixed(0)} MiB (target < ${TARGET_RSS_MIB}): ` +
        `${tusGrowth < TARGET_RSS_MIB ? "met" : "MISSED"}; median CPU per upload: depot ` +
        `${median(tus.map((u) => u.serverCpuS)).toFixed(1)} s (multipart ${median(oneGiB.map((u) => u.serverCpuS)).toFixed(1)}), ` +
        `client ${median(tus.map((u) => u.clientCpuS)).toFixed(1)} s (curl ${median(oneGiB.map((u) => u.clientCpuS)).toFixed(1)})`,
    );
  }
  if (bare) {
    lines.push(
      "",
      `Where the time goes (--bare; the same 1 GiB, medians of ${runs}; dd median ${ddMedian.toFixed(0)} MiB/s):`,
      "",
      "| bare Bun.serve step | time (curl) | throughput | % of dd | final fsync | CPU | RSS growth |",
      "|---|---:|---:|---:|---:|---:|---:|",
    );
    for (const variant of BARE_VARIANTS) {
      const of = bare.filter((r) => r.variant === variant);
      const seconds = median(of.map((r) => r.seconds));
      lines.push(
        `| \`${variant}\`: ${BARE_WHAT[variant]} | ${seconds.toFixed(2)} s | ${(GiB / MiB / seconds).toFixed(0)} MiB/s | ` +
          `${((GiB / MiB / seconds / ddMedian) * 100).toFixed(0)} % | ${of[0]?.syncMs === null ? "(inside)" : `${median(of.map((r) => r.syncMs ?? 0)).toFixed(0)} ms`} | ` +
          `${median(of.map((r) => r.cpu)).toFixed(2)} s | +${median(of.map((r) => r.growth)).toFixed(0)} MiB |`,
      );
    }
    lines.push("");
  }
  lines.push(
    `load average at end ${loadAverage()}; RSS sampled every ${SAMPLE_MS} ms, VmHWM reset before each upload`,
  );
  console.log(lines.join("\n"));
  return 0;
}

await runMain(main);
