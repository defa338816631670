// Home's overview for each role in a real browser, over 90 days of usage (tests/helpers/usage.ts):
// every chart's numbers (its table under "Show the numbers") are the stats API's, written in the
// browser's locale; a product's page shows the same charts for it and, beside the rollout slider,
// how many clients took the version and how many went back; axe-core finds no serious violation on
// Home or the product's page, light or dark; nothing is fetched from elsewhere and the CSP is kept.
import { beforeAll, expect, test } from "bun:test";
import type { Locator, Page } from "playwright-core";
import { users } from "../../src/db/schema/index.ts";
import { seriousViolations } from "../helpers/axe.ts";
import {
  fitsWidth,
  listeningDepot,
  offOrigin,
  openPage,
  signInAs,
  type Watched,
} from "../helpers/browser.ts";
import { statsOf, USAGE_PASSWORD, type UsageWorld, usageWorld } from "../helpers/usage.ts";

// Publishing sends its notification job in the version's transaction: pg-boss must be up.
const depot = listeningDepot({ jobs: "send" });
let world: UsageWorld;
beforeAll(async () => {
  world = await usageWorld(depot.ctx, depot.base);
}, 120_000);

const SERIES = "series=validations,machines,downloads,adoption,rollouts";

type Row = { day: string; product_id: string; count: number };
type Stats = {
  from: string;
  to: string;
  series: {
    validations: (Row & { code: string })[];
    machines: Row[];
    downloads: Row[];
    adoption: { day: string; product_id: string; version: string; share: number }[];
    rollouts: { product_id: string; version_id: string; version: string; clients: number; failed: number }[];
  };
};

/** Several stats answers as one (Home puts each product's together for a vendor). */
const merged = (answers: Stats[]): Stats => ({
  from: answers[0]?.from ?? "",
  to: answers[0]?.to ?? "",
  series: {
    validations: answers.flatMap((a) => a.series.validations),
    machines: answers.flatMap((a) => a.series.machines),
    downloads: answers.flatMap((a) => a.series.downloads),
    adoption: answers.flatMap((a) => a.series.adoption),
    rollouts: answers.flatMap((a) => a.series.rollouts),
  },
});

function daysOf(stats: Stats): string[] {
  const days: string[] = [];
  for (
    let time = Date.parse(`${stats.from}T00:00:00Z`);
    time <= Date.parse(`${stats.to}T00:00:00Z`);
    time += 86_400_000
  )
    days.push(new Date(time).toISOString().slice(0, 10));
  return days;
}

/** The browser's own number formats: the table must be written in its locale. */
async function formatsOf(page: Page) {
  const locale = await page.evaluate<string>("navigator.language");
  const count = new Intl.NumberFormat(locale);
  const share = new Intl.NumberFormat(locale, { style: "percent", maximumFractionDigits: 1 });
  return { count: (n: number) => count.format(n), share: (n: number) => share.format(n) };
}

/** A chart's table, opened: its header cells, and each row's day (its <time>) and cells. */
async function chartTable(page: Page, caption: string) {
  const figure = page.locator("figure", { has: page.locator("figcaption", { hasText: caption }) });
  await figure.waitFor({ timeout: 10_000 });
  // The chart itself is hidden from screen readers; the table is what they read.
  expect(await figure.locator(".chart-canvas").getAttribute("aria-hidden")).toBe("true");
  expect(await figure.locator("canvas").count()).toBeGreaterThan(0);
  // Opened unless it is already (a chart drawn again keeps its table open).
  if ((await figure.locator("details").getAttribute("open")) === null) {
    await figure.getByText("Show the numbers").click();
  }
  const table = figure.getByRole("table", { name: caption });
  return tableOf(table);
}

/** A table's header and rows, once it is on the page (Home draws its tables as answers arrive). */
async function tableOf(table: Locator) {
  await table.waitFor({ timeout: 10_000 });
  const header = (await table.locator("thead th").allTextContents()).map((text) => text.trim());
  const rows = await table.locator("tbody tr").evaluateAll((trs) =>
    trs.map((tr) => ({
      day: tr.querySelector("time")?.getAttribute("datetime") ?? "",
      cells: [...tr.querySelectorAll("td")].map((td) => (td.textContent ?? "").trim()),
    })),
  );
  return { header, rows };
}

/** The validations table as it must read: a column per code (VALID first), and the day's total. */
function expectedValidations(stats: Stats, format: (n: number) => string) {
  const codes = [...new Set(stats.series.validations.map((row) => row.code))].sort((a, b) =>
    a === "VALID" ? -1 : b === "VALID" ? 1 : a.localeCompare(b),
  );
  const sum = (day: string, code?: string) =>
    stats.series.validations
      .filter((row) => row.day === day && (code === undefined || row.code === code))
      .reduce((total, row) => total + row.count, 0);
  return {
    header: ["Day", ...codes, "Total"],
    rows: daysOf(stats).map((day) => ({
      day,
      cells: [...codes.map((code) => format(sum(day, code))), format(sum(day))],
    })),
  };
}

/** A one-series table (machines, downloads): the day's sum over the rows. */
function expectedDaily(stats: Stats, rows: Row[], label: string, format: (n: number) => string) {
  return {
    header: ["Day", label],
    rows: daysOf(stats).map((day) => ({
      day,
      cells: [format(rows.filter((row) => row.day === day).reduce((total, row) => total + row.count, 0))],
    })),
  };
}

/** One product's adoption table: a column per version (release order), the day's share of each. */
function expectedAdoption(stats: Stats, productId: number, format: (n: number) => string) {
  const rows = stats.series.adoption.filter((row) => row.product_id === String(productId));
  const versions = [...new Set(rows.map((row) => row.version))].sort((a, b) =>
    a.localeCompare(b, "en", { numeric: true }),
  );
  return {
    header: ["Day", ...versions],
    rows: daysOf(stats).map((day) => ({
      day,
      cells: versions.map((version) =>
        format(rows.find((row) => row.day === day && row.version === version)?.share ?? 0),
      ),
    })),
  };
}

async function signedIn(user: { email: string }, viewport: { width: number; height: number } | null = null) {
  const w = await openPage(depot.origin, { viewport });
  await signInAs(w.page, depot.base, user.email, USAGE_PASSWORD);
  await w.page.waitForLoadState("networkidle");
  return w;
}

const tile = async (page: Page, label: string) =>
  (
    (await page
      .locator(".stat-tiles div", { has: page.locator("dt", { hasText: label }) })
      .locator("dd")
      .textContent()) ?? ""
  ).trim();

async function expectClean(w: Watched) {
  expect(offOrigin(w)).toEqual([]);
  // No CSP report (uPlot styles through the CSSOM), no uncaught error.
  expect(w.problems).toEqual([]);
}

test("a vendor's Home: every chart's table holds the stats API's numbers, in the browser's locale", async () => {
  const answers: Stats[] = [];
  for (const product of world.products) {
    answers.push(await statsOf(depot.base, world.vendorToken, `/api/products/${product.id}/stats?${SERIES}`));
  }
  const stats = merged(answers);
  const w = await signedIn(world.vendor);
  try {
    const { page } = w;
    const format = await formatsOf(page);
    await page.getByRole("heading", { name: "The last 30 days" }).waitFor({ timeout: 10_000 });

    expect(await chartTable(page, "Validations per day by outcome")).toEqual(
      expectedValidations(stats, format.count),
    );
    expect(await chartTable(page, "Active machines per day")).toEqual(
      expectedDaily(stats, stats.series.machines, "Active machines", format.count),
    );
    expect(await chartTable(page, "Downloads per day")).toEqual(
      expectedDaily(stats, stats.series.downloads, "Downloads", format.count),
    );
    for (const product of world.products) {
      expect(await chartTable(page, `${product.name}: share of clients per version`)).toEqual(
        expectedAdoption(stats, product.id, format.share),
      );
    }
    const total = stats.series.validations.reduce((sum, row) => sum + row.count, 0);
    expect(await tile(page, "Validations")).toBe(format.count(total));
    const lastMachines = stats.series.machines.filter((row) => row.day === stats.to);
    expect(await tile(page, "Active machines")).toBe(
      format.count(lastMachines.reduce((s, r) => s + r.count, 0)),
    );

    // The live rollout: its clients and those that went back, as the API counts them.
    const [rollout] = stats.series.rollouts;
    expect(stats.series.rollouts.length).toBe(1);
    expect(rollout?.failed).toBeGreaterThan(0);
    const rollouts = await tableOf(
      page.getByRole("table").filter({ has: page.getByRole("columnheader", { name: "Went back" }) }),
    );
    expect(rollouts.header).toEqual([
      "Product",
      "Version",
      "Offered to",
      "Next steps",
      "Clients that took it",
      "Went back",
    ]);
    expect(rollouts.rows.length).toBe(1);
    const cells = rollouts.rows[0]?.cells ?? [];
    expect(cells[0]).toBe(world.products[0]?.name);
    expect(cells[1]).toBe("1.2.0");
    expect(cells[2]).toBe(format.share(0.25));
    expect(cells[3]).toStartWith(`${format.share(0.5)} from `);
    expect(cells.slice(4)).toEqual([
      format.count(rollout?.clients ?? -1),
      format.count(rollout?.failed ?? -1),
    ]);

    // One product chosen: its numbers alone.
    const second = world.products[1];
    if (!second) throw new Error("two products expected");
    await page.getByLabel("Show").selectOption({ label: second.name });
    const one = merged([answers[1] as Stats]);
    expect(await chartTable(page, "Validations per day by outcome")).toEqual(
      expectedValidations(one, format.count),
    );
    expect(await page.getByText("No version is being rolled out").count()).toBe(1);
    await expectClean(w);
  } finally {
    await w.context.close();
  }
}, 90_000);

test("an admin's Home: every product's numbers from GET /api/stats, users and purchases", async () => {
  const stats: Stats = await statsOf(depot.base, world.adminToken, `/api/stats?${SERIES}`);
  const w = await signedIn(world.admin);
  try {
    const { page } = w;
    const format = await formatsOf(page);
    await page.getByRole("heading", { name: "The last 30 days" }).waitFor({ timeout: 10_000 });
    expect(await chartTable(page, "Validations per day by outcome")).toEqual(
      expectedValidations(stats, format.count),
    );
    expect(await chartTable(page, "Downloads per day")).toEqual(
      expectedDaily(stats, stats.series.downloads, "Downloads", format.count),
    );
    const everyUser = await depot.ctx.db.select({ id: users.id }).from(users);
    expect(await tile(page, "Users")).toBe(format.count(everyUser.length));
    expect(await tile(page, "Purchases")).toBe(format.count(0));
    await expectClean(w);
  } finally {
    await w.context.close();
  }
}, 60_000);

test("a customer's Home: their license with its seats, and the newest version they may download", async () => {
  const downloads = await statsOf(depot.base, world.customerToken, "/api/downloads");
  const w = await signedIn(world.customer);
  try {
    const { page } = w;
    const format = await formatsOf(page);
    const licenses = await tableOf(
      page.getByRole("table").filter({ has: page.getByRole("columnheader", { name: "Seats in use" }) }),
    );
    expect(licenses.header).toEqual(["Product", "Status", "Seats in use", "Expires"]);
    expect(await page.locator("tbody th").first().textContent()).toBe(world.products[0]?.name ?? "");
    expect(licenses.rows.map((row) => row.cells.slice(0, 2))).toEqual([
      ["Active", `${format.count(1)} of ${format.count(3)}`],
    ]);
    expect(await tile(page, "Seats in use")).toBe(format.count(1));
    const newest = await tableOf(
      page.getByRole("table").filter({ has: page.getByRole("columnheader", { name: "Newest version" }) }),
    );
    expect(newest.rows.map((row) => row.cells[0])).toEqual([downloads.data[0].latest.version_number]);
    expect(downloads.data[0].latest.version_number).toBe("1.2.0");
    // A customer has no seller's charts.
    expect(await page.getByRole("heading", { name: "The last 30 days" }).count()).toBe(0);
    await expectClean(w);
  } finally {
    await w.context.close();
  }
}, 60_000);

test("a product's page: its charts, and beside the rollout slider the clients that took it and went back", async () => {
  const product = world.products[0];
  if (!product) throw new Error("no product");
  const stats: Stats = await statsOf(
    depot.base,
    world.vendorToken,
    `/api/products/${product.id}/stats?${SERIES}`,
  );
  const w = await signedIn(world.vendor);
  try {
    const { page } = w;
    const format = await formatsOf(page);
    await page.goto(`${depot.base}/dashboard/products/${product.id}`, { waitUntil: "networkidle" });
    await page.getByRole("heading", { name: "Usage, the last 30 days" }).waitFor({ timeout: 10_000 });
    expect(await chartTable(page, "Validations per day by outcome")).toEqual(
      expectedValidations(stats, format.count),
    );
    expect(await chartTable(page, `${product.name}: share of clients per version`)).toEqual(
      expectedAdoption(stats, product.id, format.share),
    );
    const rollout = stats.series.rollouts[0];
    if (!rollout) throw new Error("no rollout");
    // The version's release panel: the take-up is beside its slider.
    await page
      .getByText(/Files and release/)
      .first()
      .click();
    const slider = page.getByRole("slider", { name: "Rollout" });
    await slider.waitFor({ timeout: 10_000 });
    const takeUp = page.locator(".rollout-take-up");
    expect(await takeUp.textContent()).toBe(
      `${format.count(rollout.clients)} clients took this version in the last 30 days. ` +
        `${format.count(rollout.failed)} went back to an older version after taking it: check for a failed update.`,
    );
    await expectClean(w);
  } finally {
    await w.context.close();
  }
}, 60_000);

test("axe-core finds no serious violation on Home and a product's page, light and dark, desktop and phone", async () => {
  const product = world.products[0];
  for (const colorScheme of ["light", "dark"] as const) {
    for (const viewport of [null, { width: 375, height: 740 }]) {
      const w = await signedIn(world.vendor, viewport);
      try {
        await w.page.emulateMedia({ colorScheme });
        await w.page.getByRole("heading", { name: "The last 30 days" }).waitFor({ timeout: 10_000 });
        // With the tables open: they are what a screen reader reads.
        for (const summary of await w.page.getByText("Show the numbers").all()) await summary.click();
        const where = `${colorScheme} ${viewport ? "phone" : "desktop"}`;
        expect({ where, home: await seriousViolations(w.page) }).toEqual({ where, home: [] });
        expect({ where, fits: await fitsWidth(w.page) }).toEqual({ where, fits: true });
        await w.page.goto(`${depot.base}/dashboard/products/${product?.id}`, { waitUntil: "networkidle" });
        await w.page.getByRole("heading", { name: "Usage, the last 30 days" }).waitFor({ timeout: 10_000 });
        await w.page
          .getByText(/Files and release/)
          .first()
          .click();
        await w.page.locator(".rollout-take-up").waitFor({ timeout: 10_000 });
        expect({ where, product: await seriousViolations(w.page) }).toEqual({ where, product: [] });
        expect({ where, fits: await fitsWidth(w.page) }).toEqual({ where, fits: true });
        await expectClean(w);
      } finally {
        await w.context.close();
      }
    }
  }
  // The customer's Home too.
  for (const colorScheme of ["light", "dark"] as const) {
    const w = await signedIn(world.customer);
    try {
      await w.page.emulateMedia({ colorScheme });
      await w.page.getByRole("heading", { name: "Your licenses" }).waitFor({ timeout: 10_000 });
      expect({ colorScheme, customer: await seriousViolations(w.page) }).toEqual({
        colorScheme,
        customer: [],
      });
    } finally {
      await w.context.close();
    }
  }
}, 180_000);
