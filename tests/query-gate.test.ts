import { describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { openPostgres } from "../src/db/client.ts";
import { QueryGate } from "../src/db/query-gate.ts";
import { selectRows } from "../src/db/rows.ts";
import { freshDatabase, onPostgres } from "./helpers/db.ts";

/**
 * The gate in front of postgres.js: never more than the pool size inside it (so postgres.js never
 * stacks queries on busy connections, where its queue slows down for as long as the load lasts),
 * first come first served, and a failure frees its slot.
 */

describe("QueryGate", () => {
  test("at most `limit` at once, in arrival order, and a rejection frees its slot", async () => {
    const gate = new QueryGate(3);
    let running = 0;
    let peak = 0;
    const started: number[] = [];
    const tasks = Array.from({ length: 20 }, (_, i) =>
      gate.run(async () => {
        started.push(i);
        running++;
        peak = Math.max(peak, running);
        await Bun.sleep(2);
        running--;
        if (i % 5 === 0) throw new Error(`task ${i}`);
        return i;
      }),
    );
    const results = await Promise.allSettled(tasks);
    expect(peak).toBe(3);
    expect(started).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(results.map((r) => (r.status === "fulfilled" ? r.value : (r.reason as Error).message))).toEqual(
      Array.from({ length: 20 }, (_, i) => (i % 5 === 0 ? `task ${i}` : i)),
    );
    expect(gate.waiting).toBe(0);
  });
});

describe.if(onPostgres)("openPostgres behind the gate (PostgreSQL)", () => {
  test("50 concurrent queries and 10 transactions on a pool of 3: all answer, never more than 3 sessions busy", async () => {
    const fresh = await freshDatabase();
    const database = openPostgres(fresh.url ?? "", { max: 3 });
    try {
      const probe = openPostgres(fresh.url ?? "", { max: 1 });
      let peak = 0;
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          const [row] = await selectRows<{ n: number }>(
            probe.db,
            sql`SELECT count(*)::int AS n FROM pg_stat_activity
                WHERE datname = current_database() AND state = 'active' AND pid <> pg_backend_pid()`,
          );
          peak = Math.max(peak, row?.n ?? 0);
          await Bun.sleep(5);
        }
      })();
      const queries = Array.from({ length: 50 }, (_, i) =>
        selectRows<{ n: number }>(database.db, sql`SELECT ${i}::int AS n, pg_sleep(0.02)`),
      );
      const transactions = Array.from({ length: 10 }, (_, i) =>
        database.db.transaction(async (tx) => {
          const [row] = await selectRows<{ n: number }>(
            tx as never,
            sql`SELECT ${100 + i}::int AS n, pg_sleep(0.02)`,
          );
          return row?.n;
        }),
      );
      const answers = await Promise.all(queries);
      const committed = await Promise.all(transactions);
      sampling = false;
      await sampler;
      await probe.close();
      expect(answers.map((rows) => rows[0]?.n)).toEqual(Array.from({ length: 50 }, (_, i) => i));
      expect(committed).toEqual(Array.from({ length: 10 }, (_, i) => 100 + i));
      expect(peak).toBeGreaterThan(0);
      expect(peak).toBeLessThanOrEqual(3);
    } finally {
      await database.close();
      await fresh.drop();
    }
  }, 30_000);
});
