import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from "node:crypto";
import { and, desc, gte, isNotNull, isNull, lt, or, sql } from "drizzle-orm";
import { ConfigError } from "../../config.ts";
import type { AppContext } from "../../context.ts";
import { DAY_MS } from "../../daily-limit.ts";
import { type SigningKeyRow, signingKeys } from "../../db/schema/index.ts";
import { withTransaction } from "../../db/transaction.ts";
import { rawPublicKey, thumbprint } from "./jwk.ts";
import { seal, unseal } from "./sealed.ts";

type KeysContext = Pick<AppContext, "db" | "appKey" | "config">;

export type KeyStatus = "active" | "next" | "retired";

export const keyStatus = (key: SigningKeyRow): KeyStatus =>
  key.retiredAt !== null ? "retired" : key.activatedAt === null ? "next" : "active";

/**
 * A new key pair as a row: the public half in the clear, the private half sealed under APP_KEY;
 * active at once, or (`next`) published ahead of signing anything.
 */
function newKeyRow(appKey: string, status: "active" | "next") {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const x = rawPublicKey(publicKey);
  const kid = thumbprint(x);
  const pkcs8 = privateKey.export({ format: "der", type: "pkcs8" });
  return {
    kid,
    publicKey: x,
    sealedPrivateKey: seal(appKey, kid, pkcs8),
    activatedAt: status === "active" ? sql`now()` : null,
  };
}

const isActive = and(isNull(signingKeys.retiredAt), isNotNull(signingKeys.activatedAt));
const isNext = isNull(signingKeys.activatedAt);

/** The active key, created on first use. Several instances starting at once end up with the same one. */
export async function ensureActiveKey(ctx: KeysContext): Promise<SigningKeyRow> {
  const existing = await activeKey(ctx);
  if (existing) return existing;
  await ctx.db.insert(signingKeys).values(newKeyRow(ctx.appKey, "active")).onConflictDoNothing();
  const created = await activeKey(ctx);
  if (!created) throw new Error("no active signing key after creating one");
  return created;
}

export async function activeKey(ctx: Pick<AppContext, "db">): Promise<SigningKeyRow | undefined> {
  const [row] = await ctx.db.select().from(signingKeys).where(isActive);
  return row;
}

/** Rotations and preparations one at a time, so two at once cannot both retire or add the same key. */
const lockKeys = (tx: Pick<AppContext, "db">) =>
  tx.db.execute(sql`SELECT pg_advisory_xact_lock(hashtext('depot.signing_keys'))`);

/**
 * Retires the active key and activates the next one: the one `prepareNextKey` published, or a new one.
 * Needs only APP_KEY to seal a new key, never the old one: after a lost APP_KEY this is how an
 * installation gets a key it can use again.
 */
export async function rotateSigningKey(ctx: KeysContext) {
  const result = await withTransaction(ctx, async (tx) => {
    await lockKeys(tx);
    const retired = await tx.db
      .update(signingKeys)
      .set({ retiredAt: sql`now()` })
      .where(isActive)
      .returning();
    const [prepared] = await tx.db
      .update(signingKeys)
      .set({ activatedAt: sql`now()` })
      .where(isNext)
      .returning();
    const [active] = prepared
      ? [prepared]
      : await tx.db.insert(signingKeys).values(newKeyRow(ctx.appKey, "active")).returning();
    if (!active) throw new Error("signing key insert returned nothing");
    return { active, retired: retired[0] ?? null, prepared: prepared !== undefined };
  });
  const dropped = await dropExpiredKeys(ctx);
  return { ...result, dropped };
}

/**
 * Publishes the key the next rotation will activate, so that software pinning depot's key set can ship
 * it before anything is signed with it. Idempotent: an already prepared key is returned as it is.
 */
export function prepareNextKey(ctx: KeysContext) {
  return withTransaction(ctx, async (tx) => {
    await lockKeys(tx);
    const [existing] = await tx.db.select().from(signingKeys).where(isNext);
    if (existing) return { next: existing, created: false };
    const [next] = await tx.db.insert(signingKeys).values(newKeyRow(ctx.appKey, "next")).returning();
    if (!next) throw new Error("signing key insert returned nothing");
    return { next, created: true };
  });
}

/** Retired keys whose grace period has ended: no answer or file they signed should verify any more. */
export async function dropExpiredKeys(ctx: Pick<AppContext, "db" | "config">): Promise<string[]> {
  const rows = await ctx.db
    .delete(signingKeys)
    .where(lt(signingKeys.retiredAt, graceCutoff(ctx)))
    .returning({ kid: signingKeys.kid });
  return rows.map((row) => row.kid);
}

/** The active key, the next one, then the retired ones still in their grace period, newest first. */
export function publishedKeys(ctx: KeysContext): Promise<SigningKeyRow[]> {
  // gte, not a raw sql`>= ${date}`: the column maps the Date for the driver (postgres.js takes no Date).
  return ctx.db
    .select()
    .from(signingKeys)
    .where(or(isNull(signingKeys.retiredAt), gte(signingKeys.retiredAt, graceCutoff(ctx))))
    .orderBy(
      sql`CASE WHEN ${signingKeys.retiredAt} IS NOT NULL THEN 2 WHEN ${signingKeys.activatedAt} IS NULL THEN 1 ELSE 0 END`,
      desc(signingKeys.createdAt),
      desc(signingKeys.kid),
    );
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
