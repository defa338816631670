// An S3-compatible store for the benchmarks' object-storage mode (`--s3`): s3rver, the devDependency
// the tests use, in its own process (the bench's Bun), keeping its objects under the work directory,
// so on the disk the measurement names. It stands in for a real bucket: its own speed bounds what
// depot can reach through it, which the reports say.
import { mkdirSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "../lib.ts";
import { track } from "./processes.ts";

const S3RVER = fileURLToPath(new URL("../../node_modules/s3rver/lib/s3rver.js", import.meta.url));
const BUCKET = "depot-bench";

/** Starts s3rver with one bucket; returns depot's settings for it. The bench's cleanup stops it. */
export async function startS3(workDir: string) {
  const dir = join(workDir, "s3");
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const script = join(workDir, "s3rver.ts");
  await writeFile(
    script,
    `import S3rver from ${JSON.stringify(S3RVER)};\n` +
      `await new S3rver({ port: ${port}, address: "127.0.0.1", silent: true, directory: ${JSON.stringify(dir)},\n` +
      `  configureBuckets: [{ name: ${JSON.stringify(BUCKET)}, configs: [] }] }).run();\n`,
  );
  const proc = track(
    Bun.spawn([process.execPath, script], { cwd: workDir, stdout: "ignore", stderr: "inherit" }),
  );
  const endpoint = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    const up = await fetch(endpoint).then(
      () => true,
      () => false,
    );
    if (up) break;
    if (i > 100 || proc.exitCode !== null) throw new Error("s3rver did not start");
    await Bun.sleep(100);
  }
  return {
    proc,
    description: `s3rver ${endpoint} (own process, objects under ${dir})`,
    settings: {
      STORAGE_URL: `s3://${BUCKET}/bench`,
      S3_ENDPOINT: endpoint,
      S3_REGION: "us-east-1",
      S3_ACCESS_KEY_ID: "S3RVER",
      S3_SECRET_ACCESS_KEY: "S3RVER",
    },
  };
}
