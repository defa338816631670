import type { ByteRange } from "../storage/storage.ts";

/**
 * Ranges closer than this are read from the store as one span, the bytes between them read and
 * dropped: one ranged GET of a bucket (or one read of a file) instead of one per range. A thousand
 * ranges of a blockmap's differential download then cost a few requests, and at most this many
 * unwanted bytes are read per range.
 */
export const SPAN_GAP = 128 * 1024;

const encoder = new TextEncoder();

/** A `multipart/byteranges` body (RFC 9110 §14.6): its Content-Type, exact length, and how to stream it. */
export interface MultipartRanges {
  contentType: string;
  length: number;
  /** Streams the parts in order, reading the file through `read` one span of nearby ranges at a time. */
  stream(read: (span: ByteRange) => ReadableStream<Uint8Array>): ReadableStream<Uint8Array>;
}

/**
 * The body is `--B`, each part's headers, a blank line and its bytes, parts separated by CRLF `--B`,
 * and a closing CRLF `--B--` CRLF. It starts with the boundary itself, no preamble or CRLF before it:
 * electron-updater's splitter counts bytes from the first one and reads nothing else.
 */
export function multipartRanges(
  ranges: ByteRange[],
  size: number,
  partType: string,
  boundary = `depot-${crypto.randomUUID().replaceAll("-", "")}`,
): MultipartRanges {
  const heads = ranges.map((range, i) =>
    encoder.encode(
      `${i === 0 ? "" : "\r\n"}--${boundary}\r\n` +
        `Content-Type: ${partType}\r\n` +
        `Content-Range: bytes ${range.start}-${range.end}/${size}\r\n\r\n`,
    ),
  );
  const tail = encoder.encode(`\r\n--${boundary}--\r\n`);
  const length =
    heads.reduce((sum, head) => sum + head.byteLength, 0) +
    ranges.reduce((sum, range) => sum + range.end - range.start + 1, 0) +
    tail.byteLength;

  return {
    contentType: `multipart/byteranges; boundary=${boundary}`,
    length,
    stream(read) {
      const chunks = partsOf(ranges, heads, tail, read);
      // Pulled one chunk at a time, so memory holds a chunk or so whatever the sizes; a client that
      // goes away cancels the stream, which ends the generator and with it the store's read.
      return new ReadableStream<Uint8Array>(
        {
          async pull(controller) {
            const next = await chunks.next();
            if (next.done) controller.close();
            else controller.enqueue(next.value);
          },
          async cancel() {
            await chunks.return(undefined);
          },
        },
        { highWaterMark: 0 },
      );
    },
  };
}

async function* partsOf(
  ranges: ByteRange[],
  heads: Uint8Array[],
  tail: Uint8Array,
  read: (span: ByteRange) => ReadableStream<Uint8Array>,
): AsyncGenerator<Uint8Array, void, undefined> {
  let index = 0;
  for (const span of spansOf(ranges)) {
    const cursor = new SpanCursor(read(span.range), span.range.start);
    try {
      for (let i = 0; i < span.count; i++, index++) {
        yield heads[index] as Uint8Array;
        yield* cursor.take(ranges[index] as ByteRange);
      }
    } finally {
      await cursor.close();
    }
  }
  yield tail;
}

/** Consecutive ranges (ascending, disjoint) grouped into spans whose gaps are at most SPAN_GAP. */
function* spansOf(ranges: ByteRange[]): Generator<{ range: ByteRange; count: number }> {
  let span: { range: ByteRange; count: number } | null = null;
  for (const range of ranges) {
    if (span && range.start - span.range.end - 1 <= SPAN_GAP) {
      span.range.end = range.end;
      span.count++;
      continue;
    }
    if (span) yield span;
    span = { range: { ...range }, count: 1 };
  }
  if (span) yield span;
}

/** A stream of a file's bytes from `position` on, from which exact byte ranges are taken in order. */
class SpanCursor {
  readonly #chunks: AsyncIterator<Uint8Array>;
  #chunk: Uint8Array = new Uint8Array(0);
  #offset = 0;

  constructor(
    stream: ReadableStream<Uint8Array>,
    /** The file offset of `#chunk[#offset]`. */
    private position: number,
  ) {
    this.#chunks = stream[Symbol.asyncIterator]();
  }

  /** Yields the bytes `range.start`…`range.end` (inclusive), dropping any before them. */
  async *take(range: ByteRange): AsyncGenerator<Uint8Array, void, undefined> {
    while (this.position <= range.end) {
      if (this.#offset === this.#chunk.byteLength) {
        const { value, done } = await this.#chunks.next();
        // A store that ends early must not pass for a complete answer: the response is cut off.
        if (done) throw new Error(`the release store ended the file before byte ${this.position}`);
        this.#chunk = value;
        this.#offset = 0;
        continue;
      }
      const available = this.#chunk.byteLength - this.#offset;
      if (this.position < range.start) {
        const skipped = Math.min(range.start - this.position, available);
        this.#offset += skipped;
        this.position += skipped;
        continue;
      }
      const taken = Math.min(range.end + 1 - this.position, available);
      yield this.#chunk.subarray(this.#offset, this.#offset + taken);
      this.#offset += taken;
      this.position += taken;
    }
  }

  async close(): Promise<void> {
    // Ending the iteration cancels the stream: the rest of a span's GET is not read.
    await this.#chunks.return?.().catch(() => {});
  }
}
