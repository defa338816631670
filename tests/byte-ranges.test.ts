import { describe, expect, test } from "bun:test";
import {
  MALFORMED,
  MAX_RANGES,
  NOT_SATISFIABLE,
  parseRangeHeader,
  TOO_MANY,
} from "../src/http/byte-ranges.ts";
import { multipartRanges } from "../src/http/multipart-ranges.ts";

/**
 * How a Range header is read for a file of 100 bytes (RFC 9110 §14.1–14.2): the ranges sent, the
 * whole file, or a 416 with its reason; and how the multipart body streams over the store's reads. The HTTP around it is tested through a listening server in
 * tests/multi-range-downloads.test.ts and tests/versions-download.test.ts.
 */

const SIZE = 100;
const ranges = (...pairs: Array<[number, number]>) => ({
  kind: "ranges",
  ranges: pairs.map(([start, end]) => ({ start, end })),
});
const refused = (reason: string) => ({ kind: "refused", reason });
const WHOLE = { kind: "whole" };

describe("parseRangeHeader", () => {
  const cases: Array<[string | null, unknown]> = [
    [null, WHOLE],
    ["items=0-4", WHOLE],
    ["bytes=0-4", ranges([0, 4])],
    ["BYTES=0-4", ranges([0, 4])],
    ["bytes=95-", ranges([95, 99])],
    ["bytes=-5", ranges([95, 99])],
    ["bytes=-500", ranges([0, 99])],
    ["bytes=90-500", ranges([90, 99])],
    ["bytes=007-009", ranges([7, 9])],
    // Several, as asked when ascending and disjoint, touching ones included.
    ["bytes=0-4, 5-9, 20-29", ranges([0, 4], [5, 9], [20, 29])],
    ["bytes=0-4,\t10-14 ,,", ranges([0, 4], [10, 14])],
    // Unsorted or overlapping: sorted, merged where they overlap or touch.
    ["bytes=20-29, 0-4", ranges([0, 4], [20, 29])],
    ["bytes=0-10, 5-20, 30-40", ranges([0, 20], [30, 40])],
    ["bytes=10-19, 0-9", ranges([0, 19])],
    ["bytes=0-, 0-, 0-", ranges([0, 99])],
    ["bytes=-5, 90-", ranges([90, 99])],
    // Unsatisfiable ranges among satisfiable ones are dropped; none satisfiable is a 416.
    ["bytes=0-4, 100-200, -0", ranges([0, 4])],
    ["bytes=100-", refused(NOT_SATISFIABLE)],
    ["bytes=-0", refused(NOT_SATISFIABLE)],
    ["bytes=100-101, 200-", refused(NOT_SATISFIABLE)],
    // Not a valid byte-range set.
    ["bytes=5-2", refused(MALFORMED)],
    ["bytes=0-4, 9-3", refused(MALFORMED)],
    ["bytes=abc", refused(MALFORMED)],
    ["bytes=", refused(MALFORMED)],
    ["bytes= , ", refused(MALFORMED)],
    ["bytes=-", refused(MALFORMED)],
    ["bytes=1-2-3", refused(MALFORMED)],
    ["bytes=+1-2", refused(MALFORMED)],
    ["bytes=1 - 2", refused(MALFORMED)],
    ["bytes=0-1;2-3", refused(MALFORMED)],
    ["0-4", refused(MALFORMED)],
  ];
  for (const [header, expected] of cases) {
    test(`${JSON.stringify(header)} → ${JSON.stringify(expected)}`, () => {
      expect(parseRangeHeader(header, SIZE)).toEqual(expected as never);
    });
  }

  test(`${MAX_RANGES} ranges are read; one more is refused before any is looked at`, () => {
    const list = (n: number) => Array.from({ length: n }, (_, i) => `${i}-${i}`).join(",");
    const many = parseRangeHeader(`bytes=${list(MAX_RANGES)}`, 10 * MAX_RANGES);
    expect(many.kind === "ranges" && many.ranges.length).toBe(MAX_RANGES);
    expect(parseRangeHeader(`bytes=${list(MAX_RANGES + 1)}`, 10 * MAX_RANGES)).toEqual(
      refused(TOO_MANY) as never,
    );
  });

  test("an empty file has no satisfiable range", () => {
    for (const header of ["bytes=0-", "bytes=-5", "bytes=0-0, -1"])
      expect(parseRangeHeader(header, 0)).toEqual(refused(NOT_SATISFIABLE) as never);
  });
});

/** A store's stream of `size` zero bytes in 1 KiB chunks that records whether it was cancelled. */
function storeStream(size: number) {
  const state = { cancelled: false };
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= size) return controller.close();
      const chunk = new Uint8Array(Math.min(1024, size - sent));
      sent += chunk.byteLength;
      controller.enqueue(chunk);
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { stream, state };
}

describe("multipartRanges: the body as a stream", () => {
  const ranges = [
    { start: 0, end: 999_999 },
    { start: 5_000_000, end: 5_999_999 },
  ];

  test("a client that cancels the body cancels the store's read under it", async () => {
    const opened: Array<ReturnType<typeof storeStream>> = [];
    const body = multipartRanges(ranges, 10_000_000, "application/octet-stream").stream((span) => {
      const store = storeStream(span.end - span.start + 1);
      opened.push(store);
      return store.stream;
    });
    const reader = body.getReader();
    for (let i = 0; i < 3; i++) await reader.read();
    await reader.cancel();
    expect(opened).toHaveLength(1);
    expect(opened[0]?.state.cancelled).toBe(true);
  });

  test("a store that ends early fails the body rather than passing for complete", async () => {
    const body = multipartRanges(ranges, 10_000_000, "application/octet-stream").stream(
      () => storeStream(10).stream,
    );
    await expect(new Response(body).arrayBuffer()).rejects.toThrow(
      "the release store ended the file before byte 10",
    );
  });

  test("its length is exactly the bytes it sends", async () => {
    const multipart = multipartRanges(ranges, 10_000_000, "application/octet-stream");
    const body = multipart.stream((span) => storeStream(span.end - span.start + 1).stream);
    expect((await new Response(body).arrayBuffer()).byteLength).toBe(multipart.length);
  });
});
