import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { updateChecks, updateClients, usageDays } from "../src/db/schema/index.ts";
import { deleteOldUsage } from "../src/features/stats/sweep.ts";
import { UsageCounter } from "../src/features/stats/usage-counter.ts";
import { bearer, readJson, recordingLogger, startTestApp, type TestApp } from "./helpers/app.ts";
import { testOnBothDatabases } from "./helpers/both-databases.ts";
import {
  apiKeyFor,
  createProduct,
  createUser,
  insertVersionRow,
  type LicenseWorld,
  licenseIn,
  licenseWorld,
  tokenFor,
} from "./helpers/factories.ts";

/**
 * The stats API (GET /api/stats, GET /api/products/{p}/stats): daily rollups written in batches off
 * the request path, exact under concurrent validations, who sees which counts, CSV equal to JSON,
 * 422 for a bad query, and the retention sweep.
 */

const today = () => new Date().toISOString().slice(0, 10);
const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);

/** Validation needs the caller's address: it goes to a listening server. */
const urls = new WeakMap<TestApp, string>();
const validate = (t: TestApp, body: Record<string, unknown>) =>
  fetch(`${urls.get(t) ?? (urls.set(t, t.listen()).get(t) as string)}/api/v1/licenses/validate`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

/** `n` validations of `body` at once; every one must answer 200. */
async function validations(t: TestApp, n: number, body: Record<string, unknown>) {
  const answers = await Promise.all(Array.from({ length: n }, () => validate(t, body)));
  for (const answer of answers) expect(answer.status).toBe(200);
}

/** Concurrent validations of two licenses and of an unknown key, with flushes racing them. */
async function concurrentValidations(t: TestApp) {
  const w = await licenseWorld(t.ctx);
  const vendor = await tokenFor(t.ctx, w.creatorA);
  const first = await licenseIn(t, w);
  const second = await licenseIn(t, w);
  await Promise.all([
    validations(t, 20, { key: first.key }),
    validations(t, 12, { key: second.key, productId: String(w.productA.id) }),
    validations(t, 7, { key: second.key, productId: String(w.productB.id) }),
    validations(t, 5, { key: "NOPE-NOPE-NOPE-NOPE", productId: String(w.productA.id) }),
    t.ctx.usage.flush(),
    t.ctx.usage.flush(),
  ]);
  await t.ctx.usage.flush();
  const answer = await t.request(`/api/products/${w.productA.id}/stats?series=validations`, {
    headers: bearer(vendor),
  });
  expect(answer.status).toBe(200);
  const product = String(w.productA.id);
  expect((await readJson(answer)).series.validations).toEqual([
    { day: today(), product_id: product, code: "NOT_FOUND", count: 5 },
    { day: today(), product_id: product, code: "PRODUCT_MISMATCH", count: 7 },
    { day: today(), product_id: product, code: "VALID", count: 32 },
  ]);
}

describe("rollups under concurrent validations", () => {
  testOnBothDatabases(concurrentValidations, { timeoutMs: 60_000 });
});

describe("GET /api/products/{p}/stats and GET /api/stats", () => {
  let t: TestApp;
  let w: LicenseWorld;
  const tokens: Record<string, string> = {};
  let holderLicense: { id: string; key: string };

  beforeAll(async () => {
    t = await startTestApp();
    w = await licenseWorld(t.ctx);
    const admin = await createUser(t.ctx, { role: "admin" });
    const otherCustomer = await createUser(t.ctx);
    Object.assign(tokens, {
      admin: await tokenFor(t.ctx, admin),
      vendor: await tokenFor(t.ctx, w.creatorA),
      otherVendor: await tokenFor(t.ctx, w.creatorB),
      holder: await tokenFor(t.ctx, w.owner),
      otherCustomer: await tokenFor(t.ctx, otherCustomer),
    });
    holderLicense = await licenseIn(t, w);
    const othersLicense = await licenseIn(t, w, { ownerId: String(otherCustomer.id) });
    await validations(t, 3, { key: holderLicense.key });
    await validations(t, 5, { key: othersLicense.key });
    await t.ctx.usage.flush();
  });
  afterAll(() => t.close());

  const stats = (path: string, who: string) => t.request(path, { headers: bearer(tokens[who] ?? "") });

  test("the product's vendor sees every license's counts, every series", async () => {
    const answer = await stats(`/api/products/${w.productA.id}/stats`, "vendor");
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toStartWith("application/json");
    const body = await readJson(answer);
    expect(body.scope).toBe("product");
    expect(body.to).toBe(today());
    expect(body.from).toBe(daysAgo(29));
    expect(Object.keys(body.series)).toEqual([
      "validations",
      "activations",
      "deactivations",
      "machines",
      "downloads",
      "polls",
      "adoption",
      "rollouts",
    ]);
    expect(body.series.validations).toEqual([
      { day: today(), product_id: String(w.productA.id), code: "VALID", count: 8 },
    ]);
  });

  test("a customer holding a license sees only their own licenses' counts", async () => {
    const answer = await stats(`/api/products/${w.productA.id}/stats`, "holder");
    expect(answer.status).toBe(200);
    const body = await readJson(answer);
    expect(body.scope).toBe("own_licenses");
    expect(body.series.validations).toEqual([
      { day: today(), product_id: String(w.productA.id), code: "VALID", count: 3 },
    ]);
    // Downloads, polls and adoption are not tied to a license: a customer sees none of them.
    expect(body.series.downloads).toEqual([]);
    expect(body.series.polls).toEqual([]);
    expect(body.series.adoption).toEqual([]);
  });

  test("others are refused: 403 for a product they see but hold nothing of, 404 for none", async () => {
    expect((await stats(`/api/products/${w.productA.id}/stats`, "otherVendor")).status).toBe(403);
    const refused = await stats(`/api/products/${w.productB.id}/stats`, "holder");
    expect(refused.status).toBe(403);
    expect(await readJson(refused)).toEqual({ message: "This action is unauthorized." });
    expect((await stats("/api/products/999999/stats", "vendor")).status).toBe(404);
    expect((await t.request(`/api/products/${w.productA.id}/stats`)).status).toBe(401);
  });

  test("GET /api/stats: every product for admins, 403 for anyone else", async () => {
    const answer = await stats("/api/stats?series=validations", "admin");
    expect(answer.status).toBe(200);
    const body = await readJson(answer);
    expect(body.scope).toBe("all");
    expect(body.series).toEqual({
      validations: [{ day: today(), product_id: String(w.productA.id), code: "VALID", count: 8 }],
    });
    expect((await stats("/api/stats", "vendor")).status).toBe(403);
    expect((await stats("/api/stats", "holder")).status).toBe(403);
  });

  test("?format=csv answers the same rows as the JSON", async () => {
    const query = `from=${daysAgo(3)}&to=${today()}`;
    const json = await readJson(await stats(`/api/stats?${query}`, "admin"));
    const csv = await stats(`/api/stats?${query}&format=csv`, "admin");
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(csv.headers.get("content-disposition")).toBe(
      `attachment; filename="depot-stats-${daysAgo(3)}-${today()}.csv"`,
    );
    const [header, ...lines] = (await csv.text()).trimEnd().split("\r\n");
    const columns = (header ?? "").split(",");
    const fromCsv: Record<string, Record<string, unknown>[]> = Object.fromEntries(
      Object.keys(json.series).map((name) => [name, []]),
    );
    for (const line of lines) {
      const cells = Object.fromEntries(line.split(",").map((cell, i) => [columns[i], cell]));
      const rows = fromCsv[String(cells.series)];
      const like = json.series[String(cells.series)][rows?.length ?? 0] ?? {};
      rows?.push(
        Object.fromEntries(
          Object.entries(like).map(([field, value]) => [
            field,
            typeof value === "number" ? Number(cells[field]) : cells[field],
          ]),
        ),
      );
    }
    expect(lines.length).toBeGreaterThan(0);
    expect(fromCsv).toEqual(json.series);
  });

  test("?format=csv writes text a spreadsheet would run as a formula as text", async () => {
    const product = w.productA.id;
    const files = ['=HYPERLINK("http://evil.example")', "@SUM(A1)", "+1+1", "-2+3", "plain.zip"];
    await t.ctx.db.insert(usageDays).values(
      files.map((file) => ({
        day: today(),
        productId: product,
        series: "downloads",
        version: "9.9.9",
        detail: file,
        count: 1,
      })),
    );
    const query = `/api/products/${product}/stats?series=downloads&from=${today()}&to=${today()}`;
    const json = await readJson(await stats(query, "vendor"));
    expect(json.series.downloads.map((row: { file: string }) => row.file).sort()).toEqual([...files].sort());
    const csv = await (await stats(`${query}&format=csv`, "vendor")).text();
    const [header, ...lines] = csv.trimEnd().split("\r\n");
    const file = (header ?? "").split(",").indexOf("file");
    const cells = lines.map((line) => line.split(/,(?=(?:[^"]*"[^"]*")*[^"]*$)/)[file]).sort();
    expect(cells).toEqual(
      ['"\'=HYPERLINK(""http://evil.example"")"', "'+1+1", "'-2+3", "'@SUM(A1)", "plain.zip"].sort(),
    );
  });

  test("a bad from, to, series or format is a 422 naming the field", async () => {
    const cases: [string, string][] = [
      ["from=2026-13-01", "from"],
      ["from=2026-02-30", "from"],
      ["to=yesterday", "to"],
      [`from=${today()}&to=${daysAgo(1)}`, "from"],
      [`from=2020-01-01&to=${today()}`, "from"],
      ["series=validations,nope", "series"],
      ["series=", "series"],
      ["format=xml", "format"],
    ];
    for (const [query, field] of cases) {
      const answer = await stats(`/api/products/${w.productA.id}/stats?${query}`, "vendor");
      expect(answer.status).toBe(422);
      const body = await readJson(answer);
      expect(Object.keys(body.errors)).toEqual([field]);
      expect(body.message).toBeString();
    }
  });

  test("the sweep deletes usage older than STATS_RETENTION_DAYS and keeps the rest", async () => {
    const retention = t.ctx.config.statsRetentionDays;
    const product = w.productA.id;
    await t.ctx.db.insert(usageDays).values([
      { day: daysAgo(retention + 1), productId: product, series: "activations", count: 4 },
      { day: daysAgo(retention - 1), productId: product, series: "activations", count: 2 },
    ]);
    await t.ctx.db.insert(updateClients).values([
      { day: daysAgo(retention + 1), productId: product, client: "old", currentVersion: "1.0.0" },
      { day: daysAgo(retention - 1), productId: product, client: "kept", currentVersion: "1.0.0" },
    ]);
    expect(await deleteOldUsage(t.ctx)).toBe(2);
    const left = await t.ctx.db
      .select({ day: usageDays.day })
      .from(usageDays)
      .where(sql`${usageDays.series} = 'activations'`);
    expect(left).toEqual([{ day: daysAgo(retention - 1) }]);
    expect(await t.ctx.db.select({ client: updateClients.client }).from(updateClients)).toEqual([
      { client: "kept" },
    ]);
  });
});

describe("the usage counter's bound", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  test("past 10,000 distinct rows in one interval new rows are dropped and logged; known rows count", async () => {
    const { lines, log } = recordingLogger("warn");
    const counter = new UsageCounter(t.ctx.db, log, true, 60_000);
    const product = await createProduct(t.ctx, await createUser(t.ctx, { role: "vendor" }));
    const download = (file: string) =>
      counter.add({ productId: product.id, series: "downloads", version: "1.0.0", detail: file });
    for (let i = 0; i < 10_000; i++) download(`file-${i}`);
    download("one-too-many");
    download("and-another");
    // Full, a row it already holds still counts; a new license under its fields is a new row.
    download("file-7");
    counter.add({
      productId: product.id,
      series: "downloads",
      version: "1.0.0",
      detail: "file-7",
      licenseId: "42",
    });
    await counter.flush();
    const rows = await t.ctx.db
      .select({ detail: usageDays.detail, count: usageDays.count })
      .from(usageDays)
      .where(sql`${usageDays.productId} = ${product.id}`);
    expect(rows).toHaveLength(10_000);
    expect(rows.find((row) => row.detail === "file-7")?.count).toBe(2);
    expect(rows.find((row) => row.detail === "file-9999")?.count).toBe(1);
    expect(rows.some((row) => row.detail === "one-too-many")).toBe(false);
    expect(lines.map((line) => [line.msg, line.dropped])).toEqual([
      ["usage not counted: too many distinct rows in one interval", 3],
    ]);
    // The next interval starts empty: the last row counted counts again, and a new row does.
    download("file-7");
    download("one-too-many");
    await counter.flush();
    const late = await t.ctx.db
      .select({ detail: usageDays.detail, count: usageDays.count })
      .from(usageDays)
      .where(
        sql`${usageDays.productId} = ${product.id} AND ${usageDays.detail} IN ('one-too-many', 'file-7')`,
      )
      .orderBy(usageDays.detail);
    expect(late).toEqual([
      { detail: "file-7", count: 3 },
      { detail: "one-too-many", count: 1 },
    ]);
  });
});

describe("STATS_RETENTION_DAYS=0: no usage is counted", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { STATS_RETENTION_DAYS: "0" } });
  });
  afterAll(() => t.close());

  test("validations and update polls leave no rows, and any range answers empty series", async () => {
    const w = await licenseWorld(t.ctx);
    const vendor = await tokenFor(t.ctx, w.creatorA);
    const license = await licenseIn(t, w);
    await validations(t, 4, { key: license.key });
    await insertVersionRow(t.ctx, {
      productId: w.productA.id,
      versionNumber: "1.0.0",
      title: "1.0.0",
      changelog: "",
      changelogFormat: "markdown",
      publishedAt: new Date(),
    });
    const poll = await t.request(`/api/v1/products/${w.productA.id}/upgrade?version=0.9.0`, {
      headers: { authorization: `License ${license.key}`, "x-app-version": "0.9.0" },
    });
    expect(poll.status).toBe(200);
    await t.ctx.usage.flush();
    await t.ctx.updateChecks.flush();
    expect(await t.ctx.db.select().from(usageDays)).toEqual([]);
    expect(await t.ctx.db.select().from(updateClients)).toEqual([]);
    expect(await t.ctx.db.select().from(updateChecks)).toEqual([]);
    const answer = await t.request(`/api/products/${w.productA.id}/stats?from=2020-01-01`, {
      headers: bearer(vendor),
    });
    expect(answer.status).toBe(200);
    const body = await readJson(answer);
    expect(body.from).toBe("2020-01-01");
    for (const rows of Object.values(body.series as Record<string, unknown[]>)) expect(rows).toEqual([]);
  });
});

describe("the rollouts series: live rollouts, the clients that took each, and those that went back", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  test("a vendor sees each live rollout with its schedule, its clients and its failures", async () => {
    const vendor = await createUser(t.ctx, { role: "vendor" });
    const token = await tokenFor(t.ctx, vendor);
    const product = await createProduct(t.ctx, vendor);
    const other = await createProduct(t.ctx, vendor);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString();
    const yesterday = new Date(Date.now() - 86_400_000).toISOString();
    const version = (versionNumber: string, fields: Record<string, unknown> = {}) =>
      insertVersionRow(t.ctx, {
        productId: product.id,
        versionNumber,
        title: versionNumber,
        changelog: "",
        changelogFormat: "markdown",
        publishedAt: new Date(),
        ...fields,
      });
    await version("1.0.0");
    // Live: 20 % set, a step already past raised it to 30, one tomorrow takes it to 60.
    const live = await version("1.1.0", {
      rolloutPercentage: 20,
      rolloutSchedule: [
        { at: yesterday, percentage: 30 },
        { at: tomorrow, percentage: 60 },
      ],
    });
    // Not live: a draft at 10 %, and one whose schedule has already reached 100 %.
    await version("1.2.0", { rolloutPercentage: 10, status: "draft", publishedAt: null });
    await version("0.9.0", { rolloutPercentage: 5, rolloutSchedule: [{ at: yesterday, percentage: 100 }] });
    const paused = await version("2.0.0-beta.1", { rolloutPercentage: 0, channel: "beta" });
    const seen = (client: string, days: number, currentVersion: string, productId = product.id) => ({
      client,
      day: daysAgo(days),
      productId,
      currentVersion,
    });
    await t.ctx.db.insert(updateClients).values([
      // took it and stayed
      seen("a", 3, "1.0.0"),
      seen("a", 2, "1.1.0"),
      seen("a", 1, "1.1.0"),
      // took it, then came back on 1.0.0: failed
      seen("b", 2, "1.1.0"),
      seen("b", 1, "1.0.0"),
      // went on to a newer version: not a failure
      seen("c", 3, "1.1.0"),
      seen("c", 1, "2.0.0-beta.1"),
      // never took it
      seen("d", 1, "1.0.0"),
      // another product's client under the same name and version: not counted
      seen("a", 1, "1.1.0", other.id),
      // took it before the range asked for: outside it
      seen("e", 20, "1.1.0"),
      seen("e", 19, "1.0.0"),
    ]);

    const answer = await t.request(
      `/api/products/${product.id}/stats?series=rollouts&from=${daysAgo(6)}&to=${today()}`,
      { headers: bearer(token) },
    );
    expect(answer.status).toBe(200);
    const body = await readJson(answer);
    expect(body.series).toEqual({
      rollouts: [
        {
          product_id: String(product.id),
          version_id: String(live.version.id),
          version: "1.1.0",
          percentage: 30,
          schedule: `${tomorrow}=60`,
          clients: 3,
          failed: 1,
        },
        {
          product_id: String(product.id),
          version_id: String(paused.version.id),
          version: "2.0.0-beta.1",
          percentage: 0,
          schedule: "",
          clients: 1,
          failed: 0,
        },
      ],
    });

    // The same rows in the CSV, empty cells where a rollout has no such field.
    const csv = await t.request(
      `/api/products/${product.id}/stats?series=rollouts&from=${daysAgo(6)}&to=${today()}&format=csv`,
      { headers: bearer(token) },
    );
    const [header, ...lines] = (await csv.text()).trimEnd().split("\r\n");
    const columns = (header ?? "").split(",");
    const rows = lines.map((line) =>
      Object.fromEntries(line.split(",").map((cell, i) => [columns[i], cell])),
    );
    expect(
      rows.map((row) => [
        row.series,
        row.day,
        row.version,
        row.percentage,
        row.schedule,
        row.clients,
        row.failed,
      ]),
    ).toEqual([
      ["rollouts", "", "1.1.0", "30", `${tomorrow}=60`, "3", "1"],
      ["rollouts", "", "2.0.0-beta.1", "0", "", "1", "0"],
    ]);

    // A customer of the product sees no rollouts (update polls are not recorded by license).
    const holder = await createUser(t.ctx);
    const apiKey = await apiKeyFor(t.ctx, null);
    const created = await t.request("/api/v1/licenses", {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": apiKey.key },
      body: JSON.stringify({
        ownerId: String(holder.id),
        creatorId: String(vendor.id),
        productId: String(product.id),
      }),
    });
    expect(created.status).toBe(201);
    const own = await t.request(`/api/products/${product.id}/stats?series=rollouts`, {
      headers: bearer(await tokenFor(t.ctx, holder)),
    });
    expect(await readJson(own)).toMatchObject({ scope: "own_licenses", series: { rollouts: [] } });
  });
});
