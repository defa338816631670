import { TooManySignInAttempts } from "../../errors.ts";

/** Failed sign-ins allowed per e-mail address (lower-cased) and per client address, per window. */
export const MAX_FAILURES_PER_EMAIL = 5;
export const MAX_FAILURES_PER_IP = 20;
const WINDOW_MS = 60_000;
/** Past this many keys, expired windows are swept on the next attempt so the maps cannot grow without end. */
const SWEEP_ABOVE = 10_000;

/** Attempts per key in fixed one-minute windows, counted from each key's first attempt. */
class AttemptCounter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();

  constructor(private readonly max: number) {}

  /** Seconds until `key` may try again, or 0 when it may now. */
  waitFor(key: string, now: number): number {
    const window = this.windows.get(key);
    if (!window || window.resetAt <= now || window.count < this.max) return 0;
    return Math.max(1, Math.ceil((window.resetAt - now) / 1000));
  }

  add(key: string, now: number, delta: number): void {
    if (this.windows.size > SWEEP_ABOVE) this.sweep(now);
    const window = this.windows.get(key);
    if (!window || window.resetAt <= now) {
      if (delta > 0) this.windows.set(key, { count: delta, resetAt: now + WINDOW_MS });
      return;
    }
    window.count = Math.max(0, window.count + delta);
  }

  clear(key: string): void {
    this.windows.delete(key);
  }

  private sweep(now: number): void {
    for (const [key, window] of this.windows) if (window.resetAt <= now) this.windows.delete(key);
  }
}

/**
 * Sign-in throttling, in this process's memory: several instances each count on their own (README,
 * Dashboard sign-in and sessions), and a restart forgets. An attempt is counted before the password is
 * checked and given back if it was right, so parallel guesses cannot slip past the limit together.
 */
export class SignInThrottle {
  private readonly byEmail = new AttemptCounter(MAX_FAILURES_PER_EMAIL);
  private readonly byIp = new AttemptCounter(MAX_FAILURES_PER_IP);

  /** Counts an attempt for this e-mail and address, or throws 429 when either has used up its minute. */
  begin(email: string, ip: string | null, now = Date.now()): void {
    const emailKey = email.toLowerCase();
    const ipKey = ip ?? "unknown";
    const wait = Math.max(this.byEmail.waitFor(emailKey, now), this.byIp.waitFor(ipKey, now));
    if (wait > 0) throw new TooManySignInAttempts(wait);
    this.byEmail.add(emailKey, now, 1);
    this.byIp.add(ipKey, now, 1);
  }

  /** The password was right: the e-mail starts afresh and the address gets its attempt back. */
  succeeded(email: string, ip: string | null, now = Date.now()): void {
    this.byEmail.clear(email.toLowerCase());
    this.byIp.add(ip ?? "unknown", now, -1);
  }
}
