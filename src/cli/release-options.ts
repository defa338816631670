import { UsageError } from "./command.ts";

// What the release commands (release, rollout, yank, unyank) read from their command line, checked
// before the first request: a mistake there is exit 2 with nothing sent.

/** A rollout percentage as typed: a whole number from 0 to 100, else a usage error naming `what`. */
export function percentageOf(raw: unknown, what: string): number {
  const typed = typeof raw === "string" ? raw.trim().replace(/%$/, "") : "";
  const n = /^\d{1,3}$/.test(typed) ? Number(typed) : Number.NaN;
  if (!(n >= 0 && n <= 100))
    throw new UsageError(`${what} must be a whole number from 0 to 100, got "${raw}"`);
  return n;
}

/**
 * `--at TIME`: when a rollout step takes effect, as an ISO 8601 time with its zone (`2026-12-01T09:00Z`,
 * `2026-12-01T10:00+01:00`); a time without a zone would mean something else on the server.
 */
export function stepTimeOf(raw: unknown): string {
  const typed = typeof raw === "string" ? raw.trim() : "";
  const zoned = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i.test(typed);
  const time = zoned ? new Date(typed) : null;
  if (time === null || Number.isNaN(time.getTime())) {
    throw new UsageError(`--at must be an ISO 8601 time with its zone (2026-12-01T09:00Z), got "${raw}"`);
  }
  return time.toISOString();
}
