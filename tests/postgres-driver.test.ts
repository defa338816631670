import { expect, test } from "bun:test";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { selectRows } from "../src/db/rows.ts";
import { freshDatabase, onPostgres } from "./helpers/db.ts";

/**
 * How depot drives PostgreSQL: a patched postgres.js, and generic plans for its prepared statements.
 *
 * postgres.js 3.4.9's internal queue never compacts while it is non-empty, which under sustained load
 * (more queries in flight than connections) makes every query slower for as long as the load lasts.
 * `npm install` applies patches/postgres+3.4.9.patch (the postinstall script runs patch-package): each
 * build of the module that Bun, Node or a worker may load must carry the compaction.
 */
test.each(["src", "cjs/src", "cf/src"])("node_modules/postgres/%s/queue.js is patched", async (dir) => {
  const queue = await Bun.file(join(import.meta.dir, "../node_modules/postgres", dir, "queue.js")).text();
  expect(queue).toContain("if (index >= 32 && index * 2 >= xs.length) {");
  expect(queue).toContain("xs = xs.slice(index)");
});

test("the patch is for the installed version", async () => {
  const pkg = await Bun.file(join(import.meta.dir, "../node_modules/postgres/package.json")).json();
  expect(pkg.version).toBe("3.4.9");
  expect(await Bun.file(join(import.meta.dir, "../patches/postgres+3.4.9.patch")).exists()).toBe(true);
});

test.if(onPostgres)(
  "depot's PostgreSQL connections plan their prepared statements once (generic plans)",
  async () => {
    const fresh = await freshDatabase();
    try {
      const rows = await selectRows<{ plan_cache_mode: string }>(
        fresh.database.db,
        sql`SHOW plan_cache_mode`,
      );
      expect(rows).toEqual([{ plan_cache_mode: "force_generic_plan" }]);
    } finally {
      await fresh.drop();
    }
  },
);
