/**
 * A minimal streaming ustar writer and reader: enough for depot's own archives (regular files, and
 * directories for a database's data directory), readable by any tar. Release files can be
 * gigabytes, so both sides stream with bounded memory.
 */

const BLOCK = 512;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The archive ended (or broke) before its end-of-archive marker: cut short in transit or on disk. */
export class TruncatedArchive extends Error {
  constructor(readonly detail: string) {
    super(`the archive is truncated or damaged (${detail})`);
  }
}

export interface TarEntry {
  name: string;
  /** A regular file unless said; a directory has size 0 and an empty body. */
  type?: TarEntryType;
  size: number;
  /** The entry's bytes; read once, in order. */
  body: AsyncIterable<Uint8Array>;
}

/** The tar stream of `entries`, closed by the two zero blocks that end an archive. */
export async function* writeTar(entries: AsyncIterable<TarEntry> | Iterable<TarEntry>) {
  for await (const entry of entries) {
    yield header(entry.name, entry.size, entry.type ?? "file");
    let written = 0;
    for await (const chunk of entry.body) {
      written += chunk.byteLength;
      if (written > entry.size) throw new Error(`${entry.name} grew while it was archived`);
      yield chunk;
    }
    if (written !== entry.size) throw new Error(`${entry.name} shrank while it was archived`);
    const padding = (BLOCK - (entry.size % BLOCK)) % BLOCK;
    if (padding > 0) yield new Uint8Array(padding);
  }
  yield new Uint8Array(BLOCK * 2);
}

function header(name: string, size: number, type: TarEntryType): Uint8Array {
  const block = new Uint8Array(BLOCK);
  const [prefix, base] = splitName(name);
  block.set(encoder.encode(base), 0);
  octal(block, 100, 8, type === "directory" ? 0o755 : 0o644); // mode
  octal(block, 108, 8, 0); // uid
  octal(block, 116, 8, 0); // gid
  octal(block, 124, 12, size);
  octal(block, 136, 12, Math.floor(Date.now() / 1000)); // mtime
  block.fill(0x20, 148, 156); // checksum counts as spaces while it is computed
  block[156] = type === "directory" ? 0x35 : 0x30; // '5' a directory, '0' a regular file
  block.set(encoder.encode("ustar\u000000"), 257);
  block.set(encoder.encode(prefix), 345);
  octal(
    block,
    148,
    7,
    block.reduce((sum, byte) => sum + byte, 0),
  );
  return block;
}

/** ustar keeps a path in `name` (100 bytes) and, when longer, its directories in `prefix` (155). */
function splitName(name: string): [string, string] {
  const bytes = encoder.encode(name).byteLength;
  if (bytes <= 100) return ["", name];
  const cut = name.lastIndexOf("/", name.length - 1);
  const prefix = name.slice(0, cut);
  const base = name.slice(cut + 1);
  if (cut <= 0 || encoder.encode(prefix).byteLength > 155 || encoder.encode(base).byteLength > 100)
    throw new Error(`the path ${name} is too long for a tar archive`);
  return [prefix, base];
}

function octal(block: Uint8Array, offset: number, length: number, value: number) {
  const text = value.toString(8).padStart(length - 1, "0");
  if (text.length > length - 1) throw new Error(`${value} does not fit a tar header field`);
  block.set(encoder.encode(text), offset);
  block[offset + length - 1] = 0;
}

/** What an entry is: backups hold files only; a database's data directory also directories. */
export type TarEntryType = "file" | "directory";

/** Where `readTar` hands each entry's bytes; every call is awaited before more is read. */
export interface TarSink {
  entry(
    name: string,
    size: number,
    type: TarEntryType,
  ): Promise<{
    write(chunk: Uint8Array): Promise<void>;
    end(): Promise<void>;
  }>;
}

/**
 * Reads a tar stream into `sink`. Anything that is not a regular file (or, with `directories`, a
 * directory), a header whose checksum is wrong, or a stream that ends before the end-of-archive
 * marker is refused.
 */
export async function readTar(
  source: AsyncIterable<Uint8Array>,
  sink: TarSink,
  options: { directories?: boolean } = {},
): Promise<void> {
  let pending = new Uint8Array(0);
  let current: Awaited<ReturnType<TarSink["entry"]>> | null = null;
  let remaining = 0; // bytes of the current entry still to come
  let skip = 0; // padding after it
  let ended = false;
  for await (const chunk of source) {
    let data = pending.byteLength > 0 ? concat(pending, chunk) : chunk;
    pending = new Uint8Array(0);
    while (data.byteLength > 0 && !ended) {
      if (current) {
        const take = Math.min(remaining, data.byteLength);
        await current.write(data.subarray(0, take));
        data = data.subarray(take);
        remaining -= take;
        if (remaining === 0) {
          await current.end();
          current = null;
        }
        continue;
      }
      if (skip > 0) {
        const take = Math.min(skip, data.byteLength);
        data = data.subarray(take);
        skip -= take;
        continue;
      }
      if (data.byteLength < BLOCK) {
        pending = data.slice();
        break;
      }
      const block = data.subarray(0, BLOCK);
      data = data.subarray(BLOCK);
      if (block.every((byte) => byte === 0)) {
        ended = true;
        break;
      }
      const { name, size, type } = parseHeader(block, options.directories === true);
      current = await sink.entry(name, size, type);
      remaining = size;
      skip = (BLOCK - (size % BLOCK)) % BLOCK;
      if (size === 0) {
        await current.end();
        current = null;
      }
    }
  }
  if (!ended) throw new TruncatedArchive(current ? "it ends inside a file" : "no end-of-archive marker");
}

function parseHeader(
  block: Uint8Array,
  directories: boolean,
): { name: string; size: number; type: TarEntryType } {
  const stored = readOctal(block, 148, 8);
  const copy = block.slice();
  copy.fill(0x20, 148, 156);
  if (copy.reduce((sum, byte) => sum + byte, 0) !== stored)
    throw new TruncatedArchive("a header checksum is wrong");
  const flag = block[156];
  const type = flag === 0x30 || flag === 0 ? "file" : directories && flag === 0x35 ? "directory" : null;
  if (type === null) {
    throw new TruncatedArchive(
      `it holds something other than regular files${directories ? " and directories" : ""}`,
    );
  }
  const base = readString(block, 0, 100);
  const prefix = readString(block, 345, 155);
  const size = readOctal(block, 124, 12);
  // Readers disagree on whether a directory's size is followed by data; ours never is.
  if (type === "directory" && size !== 0) throw new TruncatedArchive("a directory has a size");
  return { name: prefix ? `${prefix}/${base}` : base, size, type };
}

function readString(block: Uint8Array, offset: number, length: number): string {
  const field = block.subarray(offset, offset + length);
  const end = field.indexOf(0);
  return decoder.decode(end === -1 ? field : field.subarray(0, end));
}

function readOctal(block: Uint8Array, offset: number, length: number): number {
  const text = readString(block, offset, length).trim();
  const value = Number.parseInt(text || "0", 8);
  if (!Number.isSafeInteger(value) || !/^[0-7]*$/.test(text))
    throw new TruncatedArchive("a header is malformed");
  return value;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.byteLength + b.byteLength);
  out.set(a, 0);
  out.set(b, a.byteLength);
  return out;
}
