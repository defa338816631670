// A differential update of a 100 MiB installer with 5 % of it changed, through depot's electron feed,
// by electron-updater's own client code (bench/README.md, issue 25).
//
//   npm run build && bun bench/differential-update.ts [--dir PATH] [--pg URL] [--binary PATH]
//
// What it does: `depot serve --no-workers` on a database of its own, a product, a license, and two
// versions 1.0.0 and 1.1.0 of a Windows installer: 100 MiB of random bytes, then the same with 20
// pieces of 256 KiB rewritten in place, spread over the file (5 MiB, 5 %). Each file's blockmap is
// made by app-builder (the tool electron-builder shipped), and the files and blockmaps are put in
// depot's release store with their rows (no upload: this measures the download). Then, as an app on
// 1.0.0 does: GenericProvider reads latest.yml with `Authorization: License`, the differential
// downloader fetches both blockmaps and the changed blocks (several ranges per request, as it asks by
// default) and checks the sha512; then a full download for comparison. Reported: the bytes each moved
// (the blockmaps included for the differential one) and the time each took.
import { createHash, randomBytes } from "node:crypto";
import { copyFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import {
  checkForUpdate,
  downloadDifferential,
  downloadFull,
  genericClient,
  writeBlockmap,
} from "../tests/helpers/electron-updater.ts";
import { builtBinary, depotBinary } from "./lib/depot.ts";
import { machineLine } from "./lib/machine.ts";
import { runMain } from "./lib/processes.ts";
import { ReleaseBench } from "./lib/releases.ts";
import { log, MiB, secondsSince } from "./lib.ts";

const { values: opts } = parseArgs({
  options: {
    dir: { type: "string" },
    pg: { type: "string", default: "postgres://root@127.0.0.1:5432" },
    binary: { type: "string" },
  },
});
const binary = depotBinary(opts.binary);
const LICENSE_KEY = "BENCH-DIFFS-KEY00-00000-00001";
const FILE_BYTES = 100 * MiB;
const PIECES = 20;
const PIECE_BYTES = 256 * 1024;

const hash = (algorithm: string, bytes: Uint8Array, encoding: "hex" | "base64") =>
  createHash(algorithm).update(bytes).digest(encoding);

async function main(): Promise<number> {
  if (!builtBinary(binary, "npm run build && bun bench/differential-update.ts")) return 2;
  const bench = new ReleaseBench("differential", opts, `depot_bench_differential_${process.pid}`);
  const { workDir, storageDir } = bench;
  const filesDir = join(workDir, "files");
  mkdirSync(filesDir, { recursive: true });
  const { server: depot, productId, adminId } = await bench.start();
  const { database } = bench;

  const old = randomBytes(FILE_BYTES);
  const changed = Buffer.from(old);
  for (let i = 0; i < PIECES; i++) {
    randomBytes(PIECE_BYTES).copy(changed, Math.floor((FILE_BYTES / PIECES) * (i + 0.5)));
  }
  const sql = database.connect(2);
  await sql`INSERT INTO licenses (id, key, user_id, creator_id, product_id, max_ips)
    VALUES (gen_random_uuid(), ${LICENSE_KEY}, ${adminId}, ${adminId}, ${productId}, 5)`;
  for (const [name, bytes] of [
    ["1.0.0", old],
    ["1.1.0", changed],
  ] as const) {
    const fileName = `App-Setup-${name}.exe`;
    const path = join(filesDir, fileName);
    writeFileSync(path, bytes);
    const { blockmap } = writeBlockmap(path);
    const keys = {
      file: `products/${productId}/${crypto.randomUUID()}`,
      blockmap: `products/${productId}/${crypto.randomUUID()}`,
    };
    for (const [key, source] of [
      [keys.file, path],
      [keys.blockmap, blockmap],
    ] as const) {
      mkdirSync(dirname(join(storageDir, key)), { recursive: true });
      copyFileSync(source, join(storageDir, key));
    }
    const map = readFileSync(blockmap);
    const [version] = await sql<{ id: number }[]>`
      INSERT INTO versions (product_id, version_number, title, changelog, changelog_format, published_at)
      VALUES (${productId}, ${name}, ${name}, '', 'markdown', now()) RETURNING id`;
    await sql`INSERT INTO artifacts (version_id, platform, arch, file_name, file_size, sha256, sha512, content_type,
        storage_key, blockmap_storage_key, blockmap_size, blockmap_sha256)
      VALUES (${version?.id ?? 0}, 'windows', 'x86_64', ${fileName}, ${bytes.length}, ${hash("sha256", bytes, "hex")},
        ${hash("sha512", bytes, "base64")}, 'application/octet-stream', ${keys.file}, ${keys.blockmap},
        ${map.length}, ${hash("sha256", map, "hex")})`;
  }
  await sql.end();

  log(machineLine());
  const client = genericClient({
    url: `${depot.origin}/updates/${productId}/electron/`,
    platform: "win32",
    headers: { authorization: `License ${LICENSE_KEY}` },
  });
  const { info, files } = await checkForUpdate(client);
  const [file] = files;
  if (info.version !== "1.1.0" || !file) throw new Error(`the feed offered ${info.version}`);
  const installed = join(filesDir, "App-Setup-1.0.0.exe");
  const blockmaps = ["1.0.0", "1.1.0"].map(
    (v) => statSync(join(filesDir, `App-Setup-${v}.exe.blockmap`)).size,
  );
  let started = performance.now();
  const plan = await downloadDifferential(
    client,
    file,
    { old: "1.0.0", new: "1.1.0" },
    { oldFile: installed, newFile: join(workDir, "differential.exe") },
  );
  const differentialSeconds = secondsSince(started);
  started = performance.now();
  await downloadFull(client, file, join(workDir, "full.exe"));
  const fullSeconds = secondsSince(started);
  const planned = plan.lines.find((line) => line.startsWith("Full:")) ?? "";
  // "Full: 102,400 KB, To download: 6,272.5 KB (6%)": what the downloader fetched of the file.
  const fetchedKb = Number(/To download: ([\d,.]+) KB/.exec(planned)?.[1]?.replaceAll(",", ""));
  const fetched = Math.round(fetchedKb * 1024) + blockmaps.reduce((a, b) => a + b, 0);
  console.log(`| download | bytes moved | of the file | time |`);
  console.log(`|---|---:|---:|---:|`);
  console.log(
    `| differential (${planned.replace(/^Full: /, "")}; blockmaps ${blockmaps.join(" + ")} B) | ${fetched.toLocaleString("en")} | ${((fetched / FILE_BYTES) * 100).toFixed(1)} % | ${(differentialSeconds * 1000).toFixed(0)} ms |`,
  );
  console.log(
    `| full | ${FILE_BYTES.toLocaleString("en")} | 100 % | ${(fullSeconds * 1000).toFixed(0)} ms |`,
  );
  return 0;
}

await runMain(main);
