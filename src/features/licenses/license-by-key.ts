// The read every validation makes: the license with this key, and when this address was last seen.
// It goes straight through the driver (Database.rows) and is mapped here, not by Drizzle: Drizzle's
// prepared-query path and its row mapping cost about 15 µs of CPU per call, a fifth of a validation's
// (bench/README.md, "Round three"). The SQL text and the mapping come from one list, checked by
// the compiler against the License type; tests/license-by-key.test.ts holds the values equal to
// Drizzle's own select of the same row, on both databases.
import type { PgColumn } from "drizzle-orm/pg-core";
import type { Database } from "../../db/client.ts";
import { type License, licenses } from "../../db/schema/index.ts";

type Parse<T> = (value: unknown) => T;
const asIs = <T>(value: unknown) => value as T;
/** A bigint column in number mode: postgres.js hands int8 over as a string. */
const id: Parse<number> = Number;
const idOrNull: Parse<number | null> = (value) => (value === null ? null : Number(value));
/**
 * A timestamptz: Drizzle sets the shared postgres.js client to hand these over as text, which it
 * parses itself, as this does; PGlite's arrive as Dates.
 */
const dateOrNull: Parse<Date | null> = (value) =>
  value === null || value instanceof Date ? value : new Date(value as string);
const date = dateOrNull as Parse<Date>;

/** Every field of a License, its column, and how the driver's value becomes the field's. */
const FIELDS: { [K in keyof License]: readonly [PgColumn, Parse<License[K]>] } = {
  id: [licenses.id, asIs],
  key: [licenses.key, asIs],
  userId: [licenses.userId, id],
  creatorId: [licenses.creatorId, id],
  productId: [licenses.productId, id],
  expires: [licenses.expires, dateOrNull],
  maxIps: [licenses.maxIps, asIs],
  ipCount: [licenses.ipCount, asIs],
  maxMachines: [licenses.maxMachines, asIs],
  floating: [licenses.floating, asIs],
  heartbeatSeconds: [licenses.heartbeatSeconds, asIs],
  machineFileTtlMax: [licenses.machineFileTtlMax, asIs],
  policyId: [licenses.policyId, idOrNull],
  policyOverrides: [licenses.policyOverrides, asIs],
  revokedAt: [licenses.revokedAt, dateOrNull],
  createdAt: [licenses.createdAt, date],
  updatedAt: [licenses.updatedAt, date],
};
const ENTRIES = Object.entries(FIELDS) as [keyof License, readonly [PgColumn, Parse<unknown>]][];

/** The license's columns in FIELDS' order, then the address's last_seen_at (null: a new address). */
const LICENSE_BY_KEY = `SELECT ${ENTRIES.map(([, [column]]) => `l."${column.name}"`).join(", ")}, i.last_seen_at
FROM licenses l LEFT JOIN license_ips i ON i.license_id = l.id AND i.ip = $2
WHERE l.key = $1`;

export interface LicenseByKey {
  license: License;
  /** When `ip` was last seen for this license; null: it is a new address. */
  lastSeenAt: Date | null;
}

/** The license whose key is `key` (normalised), and when `ip` was last seen for it; null: no such key. */
export async function licenseByKey(
  database: Pick<Database, "rows">,
  key: string,
  ip: string,
): Promise<LicenseByKey | null> {
  const [row] = await database.rows(LICENSE_BY_KEY, [key, ip]);
  if (!row) return null;
  const license: Record<string, unknown> = {};
  for (let index = 0; index < ENTRIES.length; index++) {
    const [field, [, parse]] = ENTRIES[index] as (typeof ENTRIES)[number];
    license[field] = parse(row[index]);
  }
  return { license: license as License, lastSeenAt: dateOrNull(row[ENTRIES.length]) };
}
