import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from "node:crypto";
import { desc, gte, isNull, lt, or, sql } from "drizzle-orm";
import { ConfigError } from "../../config.ts";
import type { AppContext } from "../../context.ts";
import { type SigningKeyRow, signingKeys } from "../../db/schema/index.ts";
import { withTransaction } from "../../db/transaction.ts";
import { rawPublicKey, thumbprint } from "./jwk.ts";
import { seal, unseal } from "./sealed.ts";

type KeysContext = Pick<AppContext, "db" | "appKey" | "config">;

const DAY_MS = 86_400_000;

/** A new key pair as a row: the public half in the clear, the private half sealed under APP_KEY. */
function newKeyRow(appKey: string) {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const x = rawPublicKey(publicKey);
  const kid = thumbprint(x);
  const pkcs8 = privateKey.export({ format: "der", type: "pkcs8" });
  return { kid, publicKey: x, sealedPrivateKey: seal(appKey, kid, pkcs8) };
}

/** The active key, created on first use. Several instances starting at once end up with the same one. */
export async function ensureActiveKey(ctx: KeysContext): Promise<SigningKeyRow> {
  const existing = await activeKey(ctx);
  if (existing) return existing;
  await ctx.db.insert(signingKeys).values(newKeyRow(ctx.appKey)).onConflictDoNothing();
  const created = await activeKey(ctx);
  if (!created) throw new Error("no active signing key after creating one");
  return created;
}

export async function activeKey(ctx: Pick<AppContext, "db">): Promise<SigningKeyRow | undefined> {
  const [row] = await ctx.db.select().from(signingKeys).where(isNull(signingKeys.retiredAt));
  return row;
}

/**
 * Retires the active key and makes a new one, in one transaction; rotations are serialised so two at
 * once cannot both retire the same key. Needs only APP_KEY to seal the new key, never the old one:
 * after a lost APP_KEY this is how an installation gets a key it can use again.
 */
export async function rotateSigningKey(ctx: KeysContext) {
  const result = await withTransaction(ctx, async (tx) => {
    await tx.db.execute(sql`SELECT pg_advisory_xact_lock(hashtext('depot.signing_keys.rotate'))`);
    const retired = await tx.db
      .update(signingKeys)
      .set({ retiredAt: sql`now()` })
      .where(isNull(signingKeys.retiredAt))
      .returning();
    const [created] = await tx.db.insert(signingKeys).values(newKeyRow(ctx.appKey)).returning();
    if (!created) throw new Error("signing key insert returned nothing");
    return { active: created, retired: retired[0] ?? null };
  });
  const dropped = await dropExpiredKeys(ctx);
  return { ...result, dropped };
}

/** Retired keys whose grace period has ended: no answer or file they signed should verify any more. */
export async function dropExpiredKeys(ctx: KeysContext): Promise<string[]> {
  const rows = await ctx.db
    .delete(signingKeys)
    .where(lt(signingKeys.retiredAt, graceCutoff(ctx)))
    .returning({ kid: signingKeys.kid });
  return rows.map((row) => row.kid);
}

/** The active key and the retired ones still in their grace period, newest first. */
export function publishedKeys(ctx: KeysContext): Promise<SigningKeyRow[]> {
  return ctx.db
    .select()
    .from(signingKeys)
    .where(or(isNull(signingKeys.retiredAt), gte(signingKeys.retiredAt, graceCutoff(ctx))))
    .orderBy(desc(signingKeys.createdAt), desc(signingKeys.kid));
}

/** When a retired key stops being published. */
export const dropsAt = (ctx: Pick<AppContext, "config">, key: SigningKeyRow): Date | null =>
  key.retiredAt ? new Date(key.retiredAt.getTime() + ctx.config.signingKeyGraceDays * DAY_MS) : null;

const graceCutoff = (ctx: Pick<AppContext, "config">) =>
  new Date(Date.now() - ctx.config.signingKeyGraceDays * DAY_MS);

/**
 * The private key of `row`. A key that does not open is a configuration error, never a reason to
 * answer unsigned: APP_KEY differs from the one the key was sealed with.
 */
export function openPrivateKey(appKey: string, row: SigningKeyRow): KeyObject {
  const pkcs8 = unseal(appKey, row.kid, row.sealedPrivateKey);
  if (!pkcs8) {
    throw new ConfigError(
      "APP_KEY",
      `cannot decrypt signing key ${row.kid} stored in the database: APP_KEY is not the one it was ` +
        "created with (set that APP_KEY again, or run `depot keys:rotate` to issue a new signing key)",
    );
  }
  const privateKey = createPrivateKey({ key: pkcs8, format: "der", type: "pkcs8" });
  if (rawPublicKey(createPublicKey(privateKey)) !== row.publicKey) {
    throw new Error(`signing key ${row.kid}: the private key does not match the published public key`);
  }
  return privateKey;
}
