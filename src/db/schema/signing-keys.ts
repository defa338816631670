import { sql } from "drizzle-orm";
import { pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { timestamptz } from "./columns.ts";

/**
 * Ed25519 key pairs that sign license answers and files. The private half is encrypted under APP_KEY,
 * so every instance on one database signs with the same key. A key is *next* (published, signing
 * nothing yet: `activated_at` null), *active* (the one that signs) or *retired* (`retired_at` set:
 * still published until its grace period ends, then deleted).
 */
export const signingKeys = pgTable(
  "signing_keys",
  {
    /** The RFC 7638 JWK thumbprint of the public key. */
    kid: text("kid").primaryKey(),
    /** The raw public key, base64url (the JWK's `x`). */
    publicKey: text("public_key").notNull(),
    /** The PKCS#8 private key sealed with AES-256-GCM under a key derived from APP_KEY. */
    sealedPrivateKey: text("sealed_private_key").notNull(),
    createdAt: timestamptz("created_at").notNull().defaultNow(),
    activatedAt: timestamptz("activated_at"),
    retiredAt: timestamptz("retired_at"),
  },
  (table) => [
    // At most one active key, even when several instances create the first one at once…
    uniqueIndex("signing_keys_one_active_index")
      .on(sql`(${table.retiredAt} IS NULL)`)
      .where(sql`${table.retiredAt} IS NULL AND ${table.activatedAt} IS NOT NULL`),
    // …and at most one next key.
    uniqueIndex("signing_keys_one_next_index")
      .on(sql`(${table.activatedAt} IS NULL)`)
      .where(sql`${table.activatedAt} IS NULL`),
  ],
);

export type SigningKeyRow = typeof signingKeys.$inferSelect;
