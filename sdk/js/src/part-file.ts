import type { Hash } from "node:crypto";
import type { FileHandle } from "node:fs/promises";

/**
 * A download in progress, `NAME.part`: bytes are appended as they arrive and hashed on the way, so the
 * digests of the whole file are ready with its last byte, however many attempts it took, without
 * holding it in memory. Web Crypto hashes only whole buffers, so this one part uses node:crypto
 * (which Node, Bun, Deno and Electron all have) for incremental SHA-256 and SHA-512.
 */
export class PartFile {
  #hashes = new Map<string, Hash>();
  #closed = false;

  private constructor(
    readonly path: string,
    private readonly handle: FileHandle,
    private readonly algorithms: string[],
    private readonly createHash: (algorithm: string) => Hash,
    private bytes: number,
  ) {
    this.#restartHashes();
  }

  /** Opens (or creates) `path`; one larger than `maxSize` cannot be a start of the file and is emptied. */
  static async open(path: string, maxSize: number, algorithms: string[]): Promise<PartFile> {
    const { open } = await import("node:fs/promises");
    const { createHash } = await import("node:crypto");
    const handle = await open(path, "a+");
    const part = new PartFile(path, handle, algorithms, createHash, 0);
    const { size } = await handle.stat();
    if (size > maxSize) {
      await part.truncate();
      return part;
    }
    // What an earlier run left: hashed once, then continued.
    const buffer = new Uint8Array(1 << 20);
    for (let position = 0; position < size; ) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
      if (bytesRead === 0) break;
      part.#update(buffer.subarray(0, bytesRead));
      position += bytesRead;
    }
    part.bytes = size;
    return part;
  }

  get size(): number {
    return this.bytes;
  }

  async append(chunk: Uint8Array): Promise<void> {
    for (let written = 0; written < chunk.byteLength; ) {
      const { bytesWritten } = await this.handle.write(chunk, written, chunk.byteLength - written);
      written += bytesWritten;
    }
    this.#update(chunk);
    this.bytes += chunk.byteLength;
  }

  /** Starts over from nothing. */
  async truncate(): Promise<void> {
    await this.handle.truncate(0);
    this.bytes = 0;
    this.#restartHashes();
  }

  /** sha256 in hex, sha512 in base64 (as depot's artifacts carry them); once, when complete. */
  digests(): Record<string, string> {
    const digests: Record<string, string> = {};
    for (const [algorithm, hash] of this.#hashes) {
      digests[algorithm] = hash.digest(algorithm === "sha256" ? "hex" : "base64");
    }
    return digests;
  }

  /** Flushed to disk first, so the file renamed into place is the one verified, even after a crash. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      await this.handle.sync();
    } finally {
      await this.handle.close();
    }
  }

  /** Closes and deletes it: what it holds cannot be continued. */
  async discard(): Promise<void> {
    await this.close();
    const { rm } = await import("node:fs/promises");
    await rm(this.path, { force: true });
  }

  #update(chunk: Uint8Array) {
    for (const hash of this.#hashes.values()) hash.update(chunk);
  }

  #restartHashes() {
    this.#hashes = new Map(this.algorithms.map((algorithm) => [algorithm, this.createHash(algorithm)]));
  }
}
