import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { count } from "drizzle-orm";
import { loadConfig } from "../src/config.ts";
import { type Database, openEmbedded } from "../src/db/client.ts";
import { products, roles, users } from "../src/db/schema/index.ts";
import { Invalid } from "../src/errors.ts";
import { type DemoSeed, seedDemo } from "../src/features/demo/seed.ts";
import { bearer, readJson } from "./helpers/app.ts";
import { depot, startServer } from "./helpers/cli.ts";
import { freshDatabase, onPostgres } from "./helpers/db.ts";
import { createUser } from "./helpers/factories.ts";

/**
 * `depot demo:seed` runs as users run it, as its own process, on PostgreSQL when the suite has one
 * (a database of this file's own) and otherwise on an embedded data directory.
 */
async function demoDatabase(): Promise<{
  env: Record<string, string> & { DATA_DIR: string };
  open(): Promise<Database>;
  drop(): Promise<void>;
}> {
  const dataDir = mkdtempSync(join(tmpdir(), "depot-demo-"));
  if (onPostgres) {
    const fresh = await freshDatabase();
    return {
      env: { DATABASE_URL: fresh.url ?? "", DATA_DIR: dataDir },
      // The file's own pool; closed only by drop().
      open: async () => ({ ...fresh.database, close: async () => {} }),
      drop: async () => {
        await fresh.drop();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  return {
    env: { DATA_DIR: dataDir },
    // Only while no depot process holds the directory.
    open: () => openEmbedded(dataDir),
    drop: async () => rmSync(dataDir, { recursive: true, force: true }),
  };
}

async function countRows(target: { open(): Promise<Database> }) {
  const database = await target.open();
  try {
    const [u] = await database.db.select({ n: count() }).from(users);
    const [p] = await database.db.select({ n: count() }).from(products);
    const [r] = await database.db.select({ n: count() }).from(roles);
    return { users: u?.n, products: p?.n, roles: r?.n };
  } finally {
    await database.close();
  }
}

/** The demo's people and products by name; the arrays keep the order of the seed's tables. */
function named(demo: DemoSeed) {
  const [vera, victor] = demo.users.vendors;
  const [carla, chen, , eli] = demo.users.customers;
  const [ultra, chat, beta] = demo.products;
  const option = ultra?.options[1];
  if (!vera || !victor || !carla || !chen || !eli || !ultra || !chat || !beta || !option)
    throw new Error("the demo data is incomplete");
  return { ...demo.users, vera, victor, carla, chen, eli, ultra, chat, beta, premium: option };
}

const single = (stdout: string) => {
  const lines = stdout.trim().split("\n");
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0] ?? "");
};

describe("depot demo:seed --json", () => {
  let target: Awaited<ReturnType<typeof demoDatabase>>;
  let demo: DemoSeed;
  let n: ReturnType<typeof named>;
  beforeAll(async () => {
    target = await demoDatabase();
  });
  afterAll(() => target.drop());

  test("prints one JSON object with every id, token and key it made", async () => {
    const result = await depot(["demo:seed", "--json"], target.env);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    demo = single(result.stdout);
    n = named(demo);

    const user = (role: string) => ({
      id: expect.any(Number),
      name: expect.any(String),
      email: expect.stringMatching(/@demo\.depot\.test$/),
      role,
      token: expect.stringMatching(/^\d+\|[A-Za-z0-9_-]{20,}$/),
      password: expect.stringMatching(/^[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}$/),
    });
    expect(demo.users.admin).toEqual({ ...user("admin"), email: "admin@demo.depot.test" });
    expect(demo.users.vendors).toEqual([user("vendor"), user("vendor")]);
    expect(demo.users.customers).toEqual([
      user("customer"),
      user("customer"),
      user("customer"),
      user("customer"),
    ]);
    expect(demo.users.support).toEqual(user("support"));
    expect(demo.users.admin.token.startsWith(`${demo.users.admin.id}|`)).toBe(true);

    expect(demo.products.map((p) => [p.slug, p.hidden, p.user_id, p.vendor_id])).toEqual([
      ["ultra-perms", false, n.vera.id, null],
      ["chat-guard", false, demo.users.admin.id, n.victor.id],
      ["beta-toolkit", true, n.victor.id, null],
    ]);
    expect(n.ultra.options).toEqual([
      { id: expect.any(Number), name: "Standard", price: 19.99 },
      { id: expect.any(Number), name: "Premium", price: 39.99 },
    ]);
    expect(n.ultra.benefits).toContainEqual({
      id: expect.any(Number),
      option_id: n.premium.id,
      name: "Source code access",
    });

    expect(demo.purchases.map((p) => p.formatted_price)).toEqual(["$39.99", "€13.99", "€18.49", "$14.99"]);
    // One license per purchase, owned by the buyer, for the purchased product; keys work at once.
    expect(demo.licenses.map((l) => [l.user_id, l.product_id])).toEqual(
      demo.purchases.map((p) => [p.user_id, p.product_id]),
    );
    for (const license of demo.licenses) expect(license.key).toMatch(/^[0-9A-Z]{5}(-[0-9A-Z]{5}){4}$/);
    expect(demo.api_keys).toEqual({
      all: { id: expect.any(Number), key: expect.stringMatching(/^dpk_/) },
      vendor: { id: expect.any(Number), key: expect.stringMatching(/^dpk_/), creator_id: n.vera.id },
    });
  }, 60_000);

  test("a second run stops with exit 1, says so on stderr and adds nothing", async () => {
    const before = await countRows(target);
    expect(before).toEqual({ users: 8, products: 3, roles: 4 });
    const again = await depot(["demo:seed", "--json"], target.env);
    expect(again.code).toBe(1);
    expect(again.stdout).toBe("");
    expect(again.stderr.trim()).toBe(
      "depot demo:seed: the demo data is already seeded (admin@demo.depot.test exists); nothing was changed.",
    );
    expect(await countRows(target)).toEqual(before);
  }, 60_000);

  describe("through HTTP", () => {
    let server: Awaited<ReturnType<typeof startServer>>;
    beforeAll(async () => {
      server = await startServer(target.env);
    }, 60_000);
    afterAll(async () => {
      server.proc.kill("SIGTERM");
      await server.proc.exited;
    });
    // APP_URL defaults to http://localhost:$PORT.
    const appUrl = () => `http://localhost:${server.port}`;
    const get = (path: string, token: string) => fetch(`${server.url}${path}`, { headers: bearer(token) });

    test("every demo user signs in to the dashboard with the password it printed", async () => {
      const everyone = [demo.users.admin, ...demo.users.vendors, ...demo.users.customers, demo.users.support];
      expect(new Set(everyone.map((user) => user.password)).size).toBe(everyone.length);
      for (const user of everyone) {
        const response = await fetch(`${server.url}/api/auth/sign-in`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ email: user.email, password: user.password }),
        });
        expect(response.status).toBe(200);
        expect(response.headers.get("set-cookie")).toStartWith("depot_session=");
        expect((await readJson(response)).data.user).toMatchObject({
          id: user.id,
          email: user.email,
          role: { name: user.role },
        });
      }
    }, 30_000);

    test("90 days of usage: the stats API answers every product's days, the overview has something to show", async () => {
      const from = new Date(Date.now() - 89 * 86_400_000).toISOString().slice(0, 10);
      const response = await get(
        `/api/stats?from=${from}&series=validations,machines,downloads,polls,adoption`,
        demo.users.admin.token,
      );
      expect(response.status).toBe(200);
      const { series } = await readJson(response);
      const days = (rows: { day: string; product_id: string }[], product: { id: number }) =>
        new Set(rows.filter((row) => row.product_id === String(product.id)).map((row) => row.day)).size;
      for (const product of [n.ultra, n.chat, n.beta]) {
        expect({ product: product.slug, days: days(series.validations, product) }).toEqual({
          product: product.slug,
          days: 90,
        });
        expect(days(series.machines, product)).toBe(90);
        expect(days(series.polls, product)).toBe(90);
        expect(days(series.adoption, product)).toBe(90);
      }
      expect(series.downloads.length).toBeGreaterThan(0);
      // Clients moved from 1.0.0 to 1.1.0: on the last day 1.1.0 holds most of them.
      const last = series.adoption.filter(
        (row: { day: string; product_id: string }) =>
          row.day === series.adoption.at(-1).day && row.product_id === String(n.ultra.id),
      );
      expect(last.map((row: { version: string }) => row.version)).toContain("1.1.0");
      expect(last.reduce((sum: number, row: { share: number }) => sum + row.share, 0)).toBeCloseTo(1, 3);
    });

    test("the admin reads every product, the hidden one too", async () => {
      const response = await get(`/api/products/${n.ultra.id}`, demo.users.admin.token);
      expect(response.status).toBe(200);
      const { data } = await readJson(response);
      expect(data).toMatchObject({
        id: n.ultra.id,
        name: "Ultra Perms",
        slug: "ultra-perms",
        hidden: "0",
        featured: "1",
        tags: ["permissions", "spigot", "paper"],
        purchases: "2",
        cover_image: "products/ultra-perms/cover.png",
        cover_image_url: `${appUrl()}/storage/products/ultra-perms/cover.png`,
        full_url: `${appUrl()}/products/ultra-perms`,
      });
      expect(JSON.parse(data.gallery_image_urls)).toHaveLength(2);
      // The seed put its images in PUBLIC_DIR, and the product's page is served: every URL answers.
      for (const url of [data.cover_image_url, ...JSON.parse(data.gallery_image_urls)]) {
        const image = await fetch(url.replace(appUrl(), server.url));
        expect({ url, status: image.status, type: image.headers.get("content-type") }).toEqual({
          url,
          status: 200,
          type: "image/png",
        });
      }
      const page = await fetch(data.full_url.replace(appUrl(), server.url));
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("<h1>Ultra Perms</h1>");

      const hidden = await get(`/api/products/${n.beta.id}`, demo.users.admin.token);
      expect(hidden.status).toBe(200);
      expect((await readJson(hidden)).data).toMatchObject({ slug: "beta-toolkit", hidden: "1" });
    });

    test("the hidden product is its owner's; a customer gets a 404", async () => {
      const owner = await get(`/api/products/${n.beta.id}`, n.victor.token);
      expect(owner.status).toBe(200);
      const customer = await get(`/api/products/${n.beta.id}`, n.carla.token);
      expect(customer.status).toBe(404);
      expect(await readJson(customer)).toEqual({ message: "Product not found." });
      const listed = await get(`/api/products/${n.chat.id}`, n.carla.token);
      expect((await readJson(listed)).data).toMatchObject({
        slug: "chat-guard",
        vendor_id: n.victor.id,
      });
    });

    test("a customer lists only their own purchases, newest first, in dollars and euros", async () => {
      const response = await get("/api/purchases", n.carla.token);
      expect(response.status).toBe(200);
      const page = await readJson(response);
      const own = demo.purchases.filter((p) => p.user_id === n.carla.id).reverse();
      expect(page.data.map((p: { id: number }) => p.id)).toEqual(own.map((p) => p.id));
      expect(page.data.map((p: { formatted_price: string }) => p.formatted_price)).toEqual([
        "€13.99",
        "$39.99",
      ]);
      expect(page.meta).toMatchObject({ current_page: 1, per_page: 15, from: 1, to: 2 });

      const nothing = await readJson(await get("/api/purchases", n.eli.token));
      expect(nothing.data).toEqual([]);
    });

    test("the support role sees every purchase and every user; the GBP purchase is recorded in euros", async () => {
      const all = await readJson(await get("/api/purchases", demo.users.support.token));
      expect(all.data).toHaveLength(demo.purchases.length);
      const filtered = await readJson(
        await get(`/api/purchases?user_id=${n.chen.id}`, demo.users.support.token),
      );
      expect(filtered.data).toEqual([
        expect.objectContaining({
          unit_price: 18.49,
          original_unit_price: 15.99,
          currency_rate: expect.closeTo(18.49 / 15.99, 6),
          formatted_price: "€18.49",
        }),
      ]);
      expect(filtered.data[0].unit_price_currency_id).not.toBe(filtered.data[0].original_currency_id);

      const user = await readJson(await get(`/api/users/${n.chen.id}`, demo.users.support.token));
      expect(user.data).toMatchObject({
        id: n.chen.id,
        email: "chen@demo.depot.test",
        role: { name: "customer" },
      });
    });
  });
});

describe("depot demo:seed", () => {
  test("without --json prints readable lines, the admin's token first", async () => {
    const target = await demoDatabase();
    try {
      const result = await depot(["demo:seed"], target.env);
      expect(result.code).toBe(0);
      const lines = result.stdout.split("\n");
      expect(lines[0]).toMatch(
        /^Dashboard: http:\/\/localhost:\d+\/ \(sign in as admin@demo\.depot\.test, password [a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}\)$/,
      );
      expect(lines[1]).toMatch(/^Admin token: 1\|[A-Za-z0-9_-]{20,}$/);
      expect(result.stdout).toMatch(
        / {2}vendor +\d+ {2}vera@demo\.depot\.test +[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4} {2}\d+\|/,
      );
      expect(result.stdout).toContain("beta-toolkit (hidden)");
      expect(result.stdout).toMatch(/ {2}all licenses +dpk_/);
    } finally {
      await target.drop();
    }
  }, 60_000);
});

describe("seedDemo", () => {
  test("is one transaction: a failure halfway leaves nothing behind", async () => {
    const { database, drop } = await freshDatabase();
    try {
      const ctx = { db: database.db, config: loadConfig({ DATA_DIR: tmpdir() }) };
      // Taken before the seed gets to the vendors: the admin and the support role are already made then.
      await createUser(ctx, { email: "vera@demo.depot.test", role: "vendor" });
      // (The seed hashes eight dashboard passwords first: argon2 takes its time.)
      const error = await seedDemo(ctx).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Invalid);
      expect((error as Invalid).errors).toEqual({ email: ["The email has already been taken."] });
      const rows = await database.db.select({ email: users.email }).from(users);
      expect(rows).toEqual([{ email: "vera@demo.depot.test" }]);
      expect((await database.db.select({ name: roles.name }).from(roles)).map((r) => r.name)).toEqual([
        "admin",
        "vendor",
        "customer",
      ]);
    } finally {
      await drop();
    }
  }, 30_000);
});
