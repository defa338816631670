import { and, eq, gt, lte, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { emailKey } from "../../db/email-key.ts";
import { signInAttempts } from "../../db/schema/index.ts";
import { TooManySignInAttempts } from "../../errors.ts";

/** Failed sign-ins allowed per user (or unknown e-mail address) and per client address, per window. */
export const MAX_FAILURES_PER_USER = 5;
export const MAX_FAILURES_PER_IP = 20;
const WINDOW = sql`interval '60 seconds'`;

type Db = AppContext["db"];
type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

/**
 * One more attempt for `key`: the window's count goes up, or a window whose minute is over starts
 * again at 1. Returns the count and the seconds until the window ends (at least 1), by the
 * database's clock, which every instance shares.
 */
async function countAttempt(tx: Tx, key: string) {
  const over = sql`${signInAttempts.resetAt} <= now()`;
  const [window] = await tx
    .insert(signInAttempts)
    .values({ key, count: 1, resetAt: sql`now() + ${WINDOW}` })
    .onConflictDoUpdate({
      target: signInAttempts.key,
      set: {
        count: sql`CASE WHEN ${over} THEN 1 ELSE ${signInAttempts.count} + 1 END`,
        resetAt: sql`CASE WHEN ${over} THEN now() + ${WINDOW} ELSE ${signInAttempts.resetAt} END`,
      },
    })
    .returning({
      count: signInAttempts.count,
      wait: sql<number>`greatest(1, ceil(extract(epoch FROM ${signInAttempts.resetAt} - now())))::int`,
    });
  if (!window) throw new Error(`no attempt window for ${key}`);
  return window;
}

/** Whom attempts are counted against: a user, or an address that belongs to nobody. */
export type AttemptSubject = `user:${number}` | `email:${string}`;

/**
 * The user the database matched, whatever way the address was typed; an unknown address counts
 * under the one form depot compares addresses in, so `Admin@…` and `admin@…` share their five.
 */
export const attemptSubject = (user: { id: number } | null, email: string): AttemptSubject =>
  user ? `user:${user.id}` : `email:${emailKey(email)}`;

/**
 * Password throttling, kept in the database so several instances count together and a restart
 * forgets nothing. An attempt is counted before the password is checked and given back if it was
 * right, so parallel guesses cannot slip past the limit together; a refused attempt is not counted.
 * `scope` keeps sign-in and the profile's current-password check apart.
 */
export class SignInThrottle {
  constructor(
    private readonly db: Db,
    private readonly scope: "sign-in" | "password" | "forgot-password",
  ) {}

  private keysOf(subject: AttemptSubject, ip: string | null) {
    return { subject: `${this.scope}:${subject}`, ip: `${this.scope}:ip:${ip ?? "unknown"}` };
  }

  /** Counts an attempt at `subject` from this address, or throws 429 when either has used up its minute. */
  async begin(subject: AttemptSubject, ip: string | null): Promise<void> {
    const keys = this.keysOf(subject, ip);
    // One transaction, the subject's row locked before the address's (always in that order, so two
    // attempts cannot deadlock): a refusal rolls both counts back.
    await this.db.transaction(async (tx) => {
      const bySubject = await countAttempt(tx, keys.subject);
      const byIp = await countAttempt(tx, keys.ip);
      const waits = [
        bySubject.count > MAX_FAILURES_PER_USER ? bySubject.wait : 0,
        byIp.count > MAX_FAILURES_PER_IP ? byIp.wait : 0,
      ];
      const wait = Math.max(...waits);
      if (wait > 0) throw new TooManySignInAttempts(wait);
    });
  }

  /** The password was right: the subject starts afresh and the address gets its attempt back. */
  async succeeded(subject: AttemptSubject, ip: string | null): Promise<void> {
    const keys = this.keysOf(subject, ip);
    await this.db.delete(signInAttempts).where(eq(signInAttempts.key, keys.subject));
    await this.db
      .update(signInAttempts)
      .set({ count: sql`greatest(${signInAttempts.count} - 1, 0)` })
      .where(and(eq(signInAttempts.key, keys.ip), gt(signInAttempts.resetAt, sql`now()`)));
  }
}

/** Deletes the windows whose minute is over (they count for nothing); returns how many. */
export async function deleteSpentAttemptWindows(ctx: Pick<AppContext, "db">): Promise<number> {
  const removed = await ctx.db
    .delete(signInAttempts)
    .where(lte(signInAttempts.resetAt, sql`now()`))
    .returning({ key: signInAttempts.key });
  return removed.length;
}
