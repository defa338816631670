// Release files for the upload and download benchmarks.
import { randomFillSync } from "node:crypto";
import { closeSync, openSync, writeSync } from "node:fs";
import { MiB } from "../lib.ts";
import { run } from "./processes.ts";

/** A new file of `bytes` random bytes, fresh for every 4 MiB: nothing repeats, nothing compresses. */
export function randomFile(path: string, bytes: number) {
  const fd = openSync(path, "wx");
  const chunk = Buffer.allocUnsafe(4 * MiB);
  try {
    for (let left = bytes; left > 0; left -= chunk.length) {
      randomFillSync(chunk);
      writeSync(fd, chunk, 0, Math.min(left, chunk.length));
    }
  } finally {
    closeSync(fd);
  }
}

/** The file's SHA-256 in hex, by `sha256sum`: a tool apart from the code being measured. */
export async function sha256sum(path: string): Promise<string> {
  return (await run(["sha256sum", path])).out.split(" ")[0] ?? "";
}
