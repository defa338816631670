/** A day in milliseconds: the window of depot's daily limits, and how long their records are kept. */
export const DAY_MS = 86_400_000;

/** Where a daily limit's window starts: 24 hours before `now`. */
export const dayAgo = (now = Date.now()) => new Date(now - DAY_MS);

/**
 * A limit of `perDay` events in any 24 hours. Given the window's events, oldest first, the seconds
 * until the oldest leaves it (the Retry-After) when the limit is reached, else null.
 */
export function dailyLimitWait(recent: { at: Date }[], perDay: number, now = Date.now()): number | null {
  const [oldest] = recent;
  if (recent.length < perDay || !oldest) return null;
  return Math.max(1, Math.ceil((oldest.at.getTime() + DAY_MS - now) / 1000));
}
