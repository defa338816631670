import type { ByteRange } from "../storage/storage.ts";

/** More ranges than this in one request is refused (416): electron-updater asks for at most 1,000 at once. */
export const MAX_RANGES = 1000;

/** What a `Range` header asks of a file of a given size (RFC 9110 §14.1–14.2). */
export type RangeRequest =
  /** No byte ranges asked for (no header, or another range unit): the whole file. */
  | { kind: "whole" }
  /** Ranges to send, ascending and disjoint; one means a plain 206, several a multipart one. */
  | { kind: "ranges"; ranges: ByteRange[] }
  /** A 416: `reason` is the message the client gets. */
  | { kind: "refused"; reason: string };

export const NOT_SATISFIABLE = "The requested range is not satisfiable.";
export const MALFORMED = "The Range header is not a valid list of byte ranges.";
export const TOO_MANY = `At most ${MAX_RANGES} ranges may be requested at once.`;

const RANGE_SPEC = /^(?:(\d+)-(\d*)|-(\d+))$/;
const UNIT = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)=(.*)$/s;

/**
 * Reads a `Range` header for a file of `size` bytes.
 *
 * A unit other than `bytes` is ignored, as RFC 9110 requires. A `bytes` header that is not a valid
 * range set (a reversed `5-2`, text, no ranges at all) or that lists more than MAX_RANGES is refused
 * rather than answered with the whole file, as §14.2 allows: a client that sent it is broken and would
 * take a 200 for its parts. Unsatisfiable ranges among satisfiable ones are dropped; none satisfiable
 * is a 416.
 *
 * Ranges that are ascending and disjoint (what electron-updater's differential download sends, which
 * matches each part to its request by position) are sent exactly as asked. Any others are sorted and
 * overlapping or touching ones merged (§14.6 allows both), so that no request can make depot send a
 * byte twice: `bytes=0-,0-,0-…` costs one copy of the file, not a thousand.
 */
export function parseRangeHeader(header: string | null, size: number): RangeRequest {
  if (header === null) return { kind: "whole" };
  const unit = UNIT.exec(header.trim());
  if (!unit) return { kind: "refused", reason: MALFORMED };
  if ((unit[1] ?? "").toLowerCase() !== "bytes") return { kind: "whole" };
  // A list may hold empty elements (RFC 9110 §5.6.1.2), which a recipient ignores.
  const specs = (unit[2] ?? "")
    .split(",")
    .map((spec) => spec.replace(/^[ \t]+|[ \t]+$/g, ""))
    .filter((spec) => spec !== "");
  if (specs.length === 0) return { kind: "refused", reason: MALFORMED };
  if (specs.length > MAX_RANGES) return { kind: "refused", reason: TOO_MANY };

  const ranges: ByteRange[] = [];
  for (const spec of specs) {
    const match = RANGE_SPEC.exec(spec);
    if (!match) return { kind: "refused", reason: MALFORMED };
    const [, first, last, suffix] = match;
    if (suffix !== undefined) {
      const length = Number(suffix);
      if (length > 0 && size > 0) ranges.push({ start: Math.max(0, size - length), end: size - 1 });
      continue;
    }
    const start = Number(first);
    const end = last === "" || last === undefined ? Number.POSITIVE_INFINITY : Number(last);
    if (end < start) return { kind: "refused", reason: MALFORMED };
    if (start < size) ranges.push({ start, end: Math.min(end, size - 1) });
  }
  if (ranges.length === 0) return { kind: "refused", reason: NOT_SATISFIABLE };
  return { kind: "ranges", ranges: ascendingAndDisjoint(ranges) ? ranges : coalesce(ranges) };
}

function ascendingAndDisjoint(ranges: ByteRange[]): boolean {
  return ranges.every((range, i) => i === 0 || range.start > (ranges[i - 1] as ByteRange).end);
}

/** Sorted by start, with ranges that overlap or touch merged into one. */
function coalesce(ranges: ByteRange[]): ByteRange[] {
  const sorted = [...ranges].sort((a, b) => a.start - b.start);
  const merged: ByteRange[] = [];
  for (const range of sorted) {
    const last = merged.at(-1);
    if (last && range.start <= last.end + 1) last.end = Math.max(last.end, range.end);
    else merged.push({ ...range });
  }
  return merged;
}
