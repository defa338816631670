import { describe, expect, test } from "bun:test";
import {
  MALFORMED,
  MAX_RANGES,
  NOT_SATISFIABLE,
  parseRangeHeader,
  TOO_MANY,
} from "../src/features/versions/byte-ranges.ts";

/**
 * How a Range header is read for a file of 100 bytes (RFC 9110 §14.1–14.2): the ranges sent, the
 * whole file, or a 416 with its reason. The HTTP around it is tested through a listening server in
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
