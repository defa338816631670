import { type FileHandle, open, rm, stat } from "node:fs/promises";

/**
 * A download in progress, `PATH.part`: bytes are appended as they arrive and hashed on the way, so
 * the SHA-256 of the whole file is ready when the last byte is written, whatever number of attempts
 * it took and without holding the file in memory. A `.part` left by an earlier run is hashed once
 * when opened and continued.
 */
export class PartFile {
  #hasher = new Bun.CryptoHasher("sha256");
  #closed = false;

  private constructor(
    readonly path: string,
    private readonly handle: FileHandle,
    private bytes: number,
  ) {}

  /** Opens (or creates) `path`; one larger than `maxSize` cannot be a start of the file and is emptied. */
  static async open(path: string, maxSize: number): Promise<PartFile> {
    const existing = await stat(path).catch(() => null);
    const handle = await open(path, "a+");
    const part = new PartFile(path, handle, 0);
    if (existing === null || existing.size === 0) return part;
    if (existing.size > maxSize) {
      await part.truncate();
      return part;
    }
    for await (const chunk of Bun.file(path).stream()) part.#hasher.update(chunk);
    part.bytes = existing.size;
    return part;
  }

  get size(): number {
    return this.bytes;
  }

  async append(chunk: Uint8Array) {
    for (let written = 0; written < chunk.byteLength; ) {
      const { bytesWritten } = await this.handle.write(chunk, written, chunk.byteLength - written);
      written += bytesWritten;
    }
    this.#hasher.update(chunk);
    this.bytes += chunk.byteLength;
  }

  /** Starts over from nothing (the server sent the whole file instead of the rest). */
  async truncate() {
    await this.handle.truncate(0);
    this.#hasher = new Bun.CryptoHasher("sha256");
    this.bytes = 0;
  }

  /** The SHA-256 (hex) of everything written; call once, when the file is complete. */
  sha256(): string {
    return this.#hasher.digest("hex");
  }

  /**
   * Flushes to disk, so the file renamed into place is the file that was verified even after a crash.
   * Closing again does nothing.
   */
  async close({ sync }: { sync: boolean }) {
    if (this.#closed) return;
    this.#closed = true;
    try {
      if (sync) await this.handle.sync();
    } finally {
      await this.handle.close();
    }
  }

  /** Closes and deletes the file: what it holds cannot be continued. */
  async discard() {
    await this.close({ sync: false });
    await rm(this.path, { force: true });
  }
}
