// Daily usage for the demo (demo:seed) and the dashboard's tests and screenshots: USAGE_DAYS of the
// rows the stats API reads, as the batch writers (features/stats/usage-counter.ts,
// features/updates/check-counter.ts) would have left them, so the overview's charts show something
// on a first run. Deterministic: the same numbers every run, shaped by each product's scale.
import type { AppContext } from "../../context.ts";
import { updateChecks, updateClients, usageDays } from "../../db/schema/index.ts";

export const USAGE_DAYS = 90;

export interface UsageProduct {
  id: number;
  /** Its file names start with the name's first word. */
  name: string;
  /** Three version names, oldest first: clients move from the first to the second midway, and a
   * quarter of them (the first product's, with `rollout`) to the third in the last 10 days. */
  versions: [string, string, string];
  /** 1 for the busiest product; the others' counts are this share of it. */
  scale: number;
  /** Update clients: each polls every few days. */
  clients: number;
  /** Whether some clients take the third version lately, and two of them go back to the second. */
  rollout: boolean;
}

/** A small deterministic generator (mulberry32): an integer below `below`. */
function numbers(seed: number) {
  let state = seed;
  return (below: number) => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * below);
  };
}

/** The day of the range each version is first downloaded on: the first from the start. */
const FIRST_DAY = [0, 45, 80];

const dayBefore = (now: Date, days: number) =>
  new Date(now.getTime() - days * 86_400_000).toISOString().slice(0, 10);

/**
 * The rows: validations by code, activations, alive machines (growing), downloads by version once
 * each exists, electron update polls, and clients moving between the versions.
 */
export function usageRows(products: UsageProduct[], now = new Date()) {
  const usage: (typeof usageDays.$inferInsert)[] = [];
  const checks: (typeof updateChecks.$inferInsert)[] = [];
  const clients: (typeof updateClients.$inferInsert)[] = [];
  products.forEach((product, index) => {
    const random = numbers(17 + index);
    const { scale, versions } = product;
    for (let ago = USAGE_DAYS - 1; ago >= 0; ago--) {
      const day = dayBefore(now, ago);
      const growth = (USAGE_DAYS - ago) / USAGE_DAYS;
      const row = (series: string, count: number, fields: Partial<typeof usageDays.$inferInsert> = {}) => {
        if (count > 0) usage.push({ day, productId: product.id, series, count, ...fields });
      };
      row("validations", Math.round((120 + 180 * growth + random(40)) * scale), { detail: "VALID" });
      row("validations", random(9), { detail: "EXPIRED" });
      row("validations", random(5), { detail: "NOT_FOUND" });
      row("validations", random(3), { detail: "MACHINE_LIMIT" });
      row("activations", random(4));
      row("machines", Math.round((30 + 50 * growth + random(6)) * scale));
      versions.forEach((version, age) => {
        if (USAGE_DAYS - ago > (FIRST_DAY[age] ?? 0)) {
          row("downloads", random(Math.round(12 * scale) + 2), {
            version,
            detail: `${product.name.split(" ")[0]}-${version}.zip`,
          });
        }
      });
      checks.push({
        day,
        productId: product.id,
        feed: "electron",
        channel: "latest",
        platform: "windows",
        currentVersion: "",
        checks: Math.round((200 + random(80)) * scale),
      });
    }
    for (let client = 0; client < product.clients; client++) {
      const moves = 45 + random(30);
      const takesNewest = product.rollout && client % 4 === 0;
      for (let ago = USAGE_DAYS - 1; ago >= 0; ago -= 1 + random(4)) {
        let version = USAGE_DAYS - ago >= moves ? versions[1] : versions[0];
        if (takesNewest && ago < 10) version = versions[2];
        // Two of those that took it went back the next time they polled.
        if (takesNewest && client < 8 && ago < 4) version = versions[1];
        clients.push({
          day: dayBefore(now, ago),
          productId: product.id,
          client: `demo-${product.id}-${client}`,
          currentVersion: version,
        });
      }
    }
  });
  return { usage, checks, clients };
}

/** Rows per INSERT: well under PostgreSQL's 65,535 parameters a statement. */
const ROWS_PER_STATEMENT = 1000;

async function insertAll<T>(rows: T[], insert: (chunk: T[]) => Promise<unknown>) {
  for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
    await insert(rows.slice(start, start + ROWS_PER_STATEMENT));
  }
}

/** Writes usageRows(products) to the database (in the caller's transaction, if any). */
export async function seedUsage(ctx: Pick<AppContext, "db">, products: UsageProduct[], now = new Date()) {
  const { usage, checks, clients } = usageRows(products, now);
  await insertAll(usage, (chunk) => ctx.db.insert(usageDays).values(chunk));
  await insertAll(checks, (chunk) => ctx.db.insert(updateChecks).values(chunk));
  await insertAll(clients, (chunk) => ctx.db.insert(updateClients).values(chunk).onConflictDoNothing());
}
