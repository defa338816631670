/**
 * `last_used_at` of tokens and API keys is kept to this resolution, so authenticating is a read,
 * not a write, on every request after the first in a minute.
 */
const LAST_USED_RESOLUTION_MS = 60_000;

export const lastUsedIsStale = (lastUsedAt: Date | null): boolean =>
  lastUsedAt === null || Date.now() - lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS;
