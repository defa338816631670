import { GaveUp } from "./failures.ts";

export interface RetryPolicy {
  /** How many times a failed attempt is tried again (so `retries + 1` attempts in a row at most). */
  retries: number;
  /** The wait before the first retry; each further one waits twice as long, up to MAX_DELAY_MS. */
  firstDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 5, firstDelayMs: 1000 };
/** The longest wait between two attempts, and the largest DEPOT_RETRY_DELAY_MS. */
export const MAX_DELAY_MS = 30_000;

/**
 * A failure worth another attempt: no connection, a 5xx, a body cut short. `progressed` says the
 * attempt got somewhere (bytes written to disk), which starts the count of failures in a row afresh:
 * a download that keeps moving on a bad link is not given up on.
 */
export class Retryable extends Error {
  constructor(
    message: string,
    readonly progressed = false,
  ) {
    super(message);
  }
}

/**
 * Runs `attempt` until it succeeds or throws something other than Retryable; after `policy.retries`
 * Retryable failures in a row, throws GaveUp with the last one's message. Waits grow exponentially,
 * with jitter so that many clients cut off together do not come back together.
 */
export async function withRetries<T>(
  policy: RetryPolicy,
  attempt: () => Promise<T>,
  onRetry: (error: Retryable, delayMs: number, failures: number) => void = () => {},
): Promise<T> {
  let failures = 0;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof Retryable)) throw error;
      failures = error.progressed ? 1 : failures + 1;
      if (failures > policy.retries) {
        const tries = failures === 1 ? "1 failed attempt" : `${failures} failed attempts in a row`;
        throw new GaveUp(`gave up after ${tries}: ${error.message}`);
      }
      const delayMs = backoff(policy, failures);
      onRetry(error, delayMs, failures);
      await Bun.sleep(delayMs);
    }
  }
}

/** The wait after the `failures`-th failure in a row: doubling from the first delay, capped, ±25%. */
function backoff(policy: RetryPolicy, failures: number): number {
  return Math.round(plainDelay(policy, failures) * (0.75 + Math.random() * 0.5));
}

const plainDelay = (policy: RetryPolicy, failures: number) =>
  Math.min(MAX_DELAY_MS, policy.firstDelayMs * 2 ** (failures - 1));

/**
 * The line each retry prints on stderr. The first failure in a row says what is retried, how often,
 * how long the waits add up to and which settings decide it, so that a CI log tells at once why a
 * step against a server that is down takes half a minute; the later ones count:
 *
 *     cannot reach http://…: connection refused; retrying up to 5 times, waiting about 31 s in all (DEPOT_RETRIES=5, DEPOT_RETRY_DELAY_MS=1000)
 *     cannot reach http://…: connection refused; retry 2 of 5 in 1.9 s
 */
export function retryNotice(
  error: Retryable,
  delayMs: number,
  failures: number,
  policy: RetryPolicy,
): string {
  if (failures > 1) return `${error.message}; retry ${failures} of ${policy.retries} in ${duration(delayMs)}`;
  let waits = 0;
  for (let failure = 1; failure <= policy.retries; failure++) waits += plainDelay(policy, failure);
  const times = policy.retries === 1 ? "once" : `up to ${policy.retries} times`;
  return (
    `${error.message}; retrying ${times}, waiting about ${duration(waits)} in all ` +
    `(DEPOT_RETRIES=${policy.retries}, DEPOT_RETRY_DELAY_MS=${policy.firstDelayMs})`
  );
}

/** `60 ms`, `1.9 s`, `31 s` */
const duration = (ms: number) => (ms < 1000 ? `${ms} ms` : `${Number((ms / 1000).toFixed(1))} s`);
