import { and, eq, gt, lte, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { signInAttempts } from "../../db/schema/index.ts";
import { TooManySignInAttempts } from "../../errors.ts";

/** Failed sign-ins allowed per e-mail address (lower-cased) and per client address, per window. */
export const MAX_FAILURES_PER_EMAIL = 5;
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

/**
 * Password throttling, kept in the database so several instances count together and a restart
 * forgets nothing. An attempt is counted before the password is checked and given back if it was
 * right, so parallel guesses cannot slip past the limit together; a refused attempt is not counted.
 * `scope` keeps sign-in and the profile's current-password check apart.
 */
export class SignInThrottle {
  constructor(
    private readonly db: Db,
    private readonly scope: "sign-in" | "password",
  ) {}

  private keysOf(email: string, ip: string | null) {
    return { email: `${this.scope}:email:${email.toLowerCase()}`, ip: `${this.scope}:ip:${ip ?? "unknown"}` };
  }

  /** Counts an attempt for this e-mail and address, or throws 429 when either has used up its minute. */
  async begin(email: string, ip: string | null): Promise<void> {
    const keys = this.keysOf(email, ip);
    // One transaction, the e-mail's row locked before the address's (always in that order, so two
    // attempts cannot deadlock): a refusal rolls both counts back.
    await this.db.transaction(async (tx) => {
      const byEmail = await countAttempt(tx, keys.email);
      const byIp = await countAttempt(tx, keys.ip);
      const waits = [
        byEmail.count > MAX_FAILURES_PER_EMAIL ? byEmail.wait : 0,
        byIp.count > MAX_FAILURES_PER_IP ? byIp.wait : 0,
      ];
      const wait = Math.max(...waits);
      if (wait > 0) throw new TooManySignInAttempts(wait);
    });
  }

  /** The password was right: the e-mail starts afresh and the address gets its attempt back. */
  async succeeded(email: string, ip: string | null): Promise<void> {
    const keys = this.keysOf(email, ip);
    await this.db.delete(signInAttempts).where(eq(signInAttempts.key, keys.email));
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
