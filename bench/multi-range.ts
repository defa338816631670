// Several byte ranges in one request against the same bytes fetched one range per request, from the
// same depot in the same run (bench/README.md, issue 25).
//
//   npm run build && bun bench/multi-range.ts [options]
//
//   --rounds N        rounds; each times both ways, in alternating order (default 15)
//   --ranges N        ranges per multi-range request (default 100)
//   --part-kib N      bytes per range, in KiB (default 64: 100 × 64 KiB ≈ 6 % of the file, the size of a
//                     differential update that changed 5 % of the file)
//   --dir PATH        parent of the work directory (default the OS temp dir)
//   --pg URL          PostgreSQL server, without a database name (default postgres://root@127.0.0.1:5432)
//   --binary PATH     the depot binary (default dist/depot; this script builds nothing)
//   --s3              the same rounds against a second depot whose releases are in s3rver (own process;
//                     bench/lib/s3.ts), STORAGE_DOWNLOADS=proxy
//
// What it does: depot serve --no-workers on a database of its own (bench/lib/releases.ts), a 100 MiB
// random file published by multipart. N ranges of the part size, spread evenly over the file with a
// random offset per round. Per round, one client (Bun's fetch, one keep-alive connection):
// - multi: one GET with `Range: bytes=a-b, c-d, …`, the 206 multipart/byteranges read to the end;
// - single: N GETs one after another, `Range: bytes=a-b` each, each 206 read to the end.
// Both are checked byte for byte after the clock stops: the multipart body against the body built
// from the source file with the boundary the answer names, each single range against its slice.
// Reported: the median and spread of each, their ratio, depot's CPU for each (/proc), and depot's
// peak RSS before and after one multi-range request for the whole file in 1,000 parts (streamed: the
// peak must not grow by the file's size).

import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { builtBinary } from "./lib/depot.ts";
import { randomFile, sha256sum } from "./lib/files.ts";
import { diskOf, machineLine } from "./lib/machine.ts";
import { run, runMain } from "./lib/processes.ts";
import { cpuSeconds, memoryMiB } from "./lib/procfs.ts";
import { ReleaseBench } from "./lib/releases.ts";
import { startS3 } from "./lib/s3.ts";
import { log, MiB, median, wholeNumber } from "./lib.ts";

const FILE_BYTES = 100 * MiB;

const { values: opts } = parseArgs({
  options: {
    rounds: { type: "string", default: "15" },
    ranges: { type: "string", default: "100" },
    "part-kib": { type: "string", default: "64" },
    dir: { type: "string" },
    pg: { type: "string", default: "postgres://root@127.0.0.1:5432" },
    binary: { type: "string" },
    s3: { type: "boolean", default: false },
  },
});
const rounds = wholeNumber("rounds", opts.rounds, 1);
const rangeCount = wholeNumber("ranges", opts.ranges, 2);
const partBytes = wholeNumber("part-kib", opts["part-kib"], 1) * 1024;
const bench = new ReleaseBench("multi-range", opts);
const { binary, workDir } = bench;

type Range = [number, number];

/** `count` ranges of `partBytes`, one in each of `count` equal slices of the file, at `seed`'s offset. */
function spread(count: number, bytes: number, seed: number): Range[] {
  const slice = Math.floor(FILE_BYTES / count);
  const offset = Math.floor(((seed * 7919) % 997) * ((slice - bytes) / 997));
  return Array.from({ length: count }, (_, i) => [i * slice + offset, i * slice + offset + bytes - 1]);
}

/** The multipart body depot must send for `ranges` of `file`, with `boundary`. */
function expectedMultipart(file: Uint8Array, ranges: Range[], boundary: string): Buffer {
  const pieces: Buffer[] = [];
  ranges.forEach(([start, end], i) => {
    pieces.push(
      Buffer.from(
        `${i === 0 ? "" : "\r\n"}--${boundary}\r\nContent-Type: application/octet-stream\r\n` +
          `Content-Range: bytes ${start}-${end}/${file.byteLength}\r\n\r\n`,
      ),
      Buffer.from(file.buffer, file.byteOffset + start, end - start + 1),
    );
  });
  pieces.push(Buffer.from(`\r\n--${boundary}--\r\n`));
  return Buffer.concat(pieces);
}

interface Target {
  name: string;
  url: string;
  pid: number;
}

async function multi(target: Target, auth: Record<string, string>, file: Uint8Array, ranges: Range[]) {
  const header = `bytes=${ranges.map(([a, b]) => `${a}-${b}`).join(", ")}`;
  const cpu0 = cpuSeconds(target.pid) ?? Number.NaN;
  const t0 = performance.now();
  const response = await fetch(target.url, { headers: { ...auth, range: header } });
  const body = Buffer.from(await response.arrayBuffer());
  const ms = performance.now() - t0;
  const cpu = (cpuSeconds(target.pid) ?? Number.NaN) - cpu0;
  const boundary = /boundary=(\S+)$/.exec(response.headers.get("content-type") ?? "")?.[1];
  if (response.status !== 206 || !boundary) throw new Error(`${target.name} multi: ${response.status}`);
  if (!body.equals(expectedMultipart(file, ranges, boundary)))
    throw new Error(`${target.name} multi: wrong body`);
  return { ms, cpu, bytes: body.byteLength };
}

async function singles(target: Target, auth: Record<string, string>, file: Uint8Array, ranges: Range[]) {
  const bodies: Buffer[] = [];
  const cpu0 = cpuSeconds(target.pid) ?? Number.NaN;
  const t0 = performance.now();
  for (const [start, end] of ranges) {
    const response = await fetch(target.url, { headers: { ...auth, range: `bytes=${start}-${end}` } });
    if (response.status !== 206) throw new Error(`${target.name} single: ${response.status}`);
    bodies.push(Buffer.from(await response.arrayBuffer()));
  }
  const ms = performance.now() - t0;
  const cpu = (cpuSeconds(target.pid) ?? Number.NaN) - cpu0;
  ranges.forEach(([start, end], i) => {
    if (!bodies[i]?.equals(Buffer.from(file.buffer, file.byteOffset + start, end - start + 1)))
      throw new Error(`${target.name} single: wrong bytes for ${start}-${end}`);
  });
  return { ms, cpu, bytes: bodies.reduce((sum, body) => sum + body.byteLength, 0) };
}

/** Publishes `path` to `origin` by multipart; returns the download URL. */
async function publish(
  origin: string,
  auth: Record<string, string>,
  productId: number,
  path: string,
  name: string,
) {
  const sha256 = await sha256sum(path);
  const published = await run([
    "curl",
    "-sS",
    "-H",
    `Authorization: ${auth.authorization}`,
    "-F",
    `version_name=${name}`,
    "-F",
    "title=Bench",
    "-F",
    "changelog=Bench multi-range",
    "-F",
    `file=@${path};type=application/octet-stream`,
    `${origin}/api/products/${productId}/versions`,
  ]);
  const version = (JSON.parse(published.out) as { data?: { id: number; sha256: string } }).data;
  if (!version || version.sha256 !== sha256)
    throw new Error(`publishing failed: ${published.out.slice(0, 500)}`);
  return `${origin}/api/products/${productId}/versions/${version.id}/download`;
}

const fmt = (values: number[]) => values.map((v) => v.toFixed(0)).join(" ");

async function main(): Promise<number> {
  if (!builtBinary(binary, "npm run build && bun bench/multi-range.ts")) return 1;
  const { source, fstype } = await diskOf(workDir);
  log(machineLine());
  log(`Disk: ${workDir} on ${source} (${fstype}); depot: ${binary}`);
  log(`${rounds} rounds; ${rangeCount} ranges of ${partBytes / 1024} KiB in a 100 MiB file`);

  const { server, token, productId } = await bench.start();
  const auth = { authorization: `Bearer ${token}` };
  const path = join(workDir, "release.bin");
  randomFile(path, FILE_BYTES);
  const file = new Uint8Array(readFileSync(path));
  const targets: Target[] = [
    {
      name: "depot (disk)",
      url: await publish(server.origin, auth, productId, path, "1.0.0"),
      pid: server.proc.pid,
    },
  ];
  if (opts.s3) {
    const s3 = await startS3(workDir);
    log(`Store of depot-s3: ${s3.description}`);
    const s3Server = await bench.another("s3", { ...s3.settings, STORAGE_DOWNLOADS: "proxy" });
    const url = await publish(s3Server.origin, auth, productId, path, "1.0.0-s3");
    targets.push({ name: "depot (s3rver)", url, pid: s3Server.proc.pid });
  }
  rmSync(path);

  for (const target of targets) {
    // Warm-up: one of each.
    await multi(target, auth, file, spread(rangeCount, partBytes, 0));
    await singles(target, auth, file, spread(rangeCount, partBytes, 0));
    const results = { multi: [] as number[], single: [] as number[], multiCpu: 0, singleCpu: 0 };
    let wire = { multi: 0, single: 0 };
    for (let round = 1; round <= rounds; round++) {
      const ranges = spread(rangeCount, partBytes, round);
      const order = round % 2 === 0 ? ["multi", "single"] : ["single", "multi"];
      for (const way of order) {
        const result =
          way === "multi"
            ? await multi(target, auth, file, ranges)
            : await singles(target, auth, file, ranges);
        results[way === "multi" ? "multi" : "single"].push(result.ms);
        if (way === "multi") results.multiCpu += result.cpu;
        else results.singleCpu += result.cpu;
        wire = { ...wire, [way]: result.bytes };
      }
    }
    const multiMs = median(results.multi);
    const singleMs = median(results.single);
    log("");
    log(
      `${target.name}: multi-range ${multiMs.toFixed(1)} ms median (${fmt([...results.multi].sort((a, b) => a - b))})`,
    );
    log(
      `${target.name}: ${rangeCount} single ranges ${singleMs.toFixed(1)} ms median (${fmt([...results.single].sort((a, b) => a - b))})`,
    );
    log(`${target.name}: single / multi = ${(singleMs / multiMs).toFixed(2)} ×`);
    log(
      `${target.name}: depot CPU per request set ${((results.multiCpu / rounds) * 1000).toFixed(1)} ms (multi) vs ` +
        `${((results.singleCpu / rounds) * 1000).toFixed(1)} ms (single); body bytes ${wire.multi} (multi, with part headers) vs ${wire.single}`,
    );

    // Streaming: the whole file as 1,000 parts must not raise the peak RSS by the file's size.
    const before = memoryMiB(target.pid, "VmHWM") ?? Number.NaN;
    const whole = spread(1000, Math.floor(FILE_BYTES / 1000) - 1, 0);
    const t0 = performance.now();
    const big = await multi(target, auth, file, whole);
    const after = memoryMiB(target.pid, "VmHWM") ?? Number.NaN;
    log(
      `${target.name}: 1,000 parts, ${(big.bytes / MiB).toFixed(1)} MiB in ${(performance.now() - t0).toFixed(0)} ms; ` +
        `depot peak RSS ${before.toFixed(0)} → ${after.toFixed(0)} MiB`,
    );
  }
  return 0;
}

await runMain(main);
