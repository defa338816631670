import { type SQL, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";

/**
 * How depot tells whether two e-mail addresses are the same: the letters A–Z match a–z and nothing
 * else is folded. Addresses are admitted only in ASCII (the `email` format), so this is
 * case-insensitivity for every address depot holds. It is spelt out rather than left to PostgreSQL's
 * `lower()`, which folds by the database's locale (`İ` becomes `i` under C.UTF-8 and stays `İ` under
 * C), while JavaScript's `toLowerCase()` makes it two code points: three rules, and an address that
 * one look-up took for `admin@…` and another did not. Every look-up, the unique index on users and
 * the sign-in throttle go through this file.
 */
const FOLD = sql.raw("'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'");

/** The form an address is compared in. */
export const emailKey = (email: string): string => email.replace(/[A-Z]/g, (letter) => letter.toLowerCase());

/** The same fold in SQL: the unique index on users is built on exactly this expression. */
export const emailKeyOf = (column: AnyPgColumn): SQL => sql`translate(${column}, ${FOLD})`;

/** `column` holds the same address as `email`. */
export const emailMatches = (column: AnyPgColumn, email: string): SQL =>
  sql`${emailKeyOf(column)} = ${emailKey(email)}`;
