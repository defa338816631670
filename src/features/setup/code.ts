import { and, eq, gt, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { setupCodes } from "../../db/schema/index.ts";
import { randomSecret, sameDigest, sha256Hex } from "../auth/secrets.ts";

/**
 * The first-run setup code: 32 random bytes (base64url), made by each start of `depot serve` while
 * no user exists and by `depot setup:link`, each replacing the last. It works for an hour, and not
 * at all once any user exists (the setup routes answer 404 from then on). Only its SHA-256 is kept,
 * in the database, so every instance and process on it accepts the code that was printed last; it
 * is printed on the terminal and never logged.
 */
const CODE_BYTES = 32;
export const SETUP_CODE_LIFETIME = "1 hour";

export interface IssuedSetupCode {
  code: string;
  expiresAt: Date;
}

/** A new code, replacing the one before it (which stops working at once). */
export async function issueSetupCode(ctx: Pick<AppContext, "db">): Promise<IssuedSetupCode> {
  const code = randomSecret(CODE_BYTES);
  const values = {
    codeHash: sha256Hex(code),
    // The database's clock, which every instance on it shares.
    expiresAt: sql`now() + ${SETUP_CODE_LIFETIME}::interval`,
    createdAt: sql`now()`,
  };
  const [row] = await ctx.db
    .insert(setupCodes)
    .values({ id: 1, ...values })
    .onConflictDoUpdate({ target: setupCodes.id, set: values })
    .returning({ expiresAt: setupCodes.expiresAt });
  if (!row) throw new Error("setup code upsert returned nothing");
  return { code, expiresAt: row.expiresAt };
}

/** Whether `code` is the last one issued and its hour has not passed; compared in constant time. */
export async function setupCodeMatches(ctx: Pick<AppContext, "db">, code: string): Promise<boolean> {
  const [row] = await ctx.db
    .select({ codeHash: setupCodes.codeHash })
    .from(setupCodes)
    .where(and(eq(setupCodes.id, 1), gt(setupCodes.expiresAt, sql`now()`)));
  return row !== undefined && sameDigest(sha256Hex(code), row.codeHash);
}

/** Setup is over: the code has nothing left to open. */
export async function dropSetupCode(ctx: Pick<AppContext, "db">): Promise<void> {
  await ctx.db.delete(setupCodes);
}

/** The page that creates the first admin: the dashboard with the code filled in. */
export const setupLink = (appUrl: string, code: string) => `${appUrl.replace(/\/+$/, "")}/setup?code=${code}`;
