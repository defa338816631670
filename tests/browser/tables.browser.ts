// Lists as tables, in a real browser against the real API: a vendor's products with their counts
// (versions, latest, licenses, validations in 7 days) sorted by a header and back; Ship → Versions with
// a yanked version's reason; Ship → Rollouts with the live rollout's percentage and steps, linking to
// its product; "New …" opening its form in a panel and Cancel closing it. A customer sees the yank and
// its reason on Downloads and Notifications, and Versions and Rollouts are no pages for them; a form's
// error goes once its field changes, and its success is a notice dismissed by hand. A product's
// licenses: their columns, sorted by owner and by expiry, a row's panel right under it, one at a time.
import { expect, test } from "bun:test";
import type { Locator } from "playwright-core";
import { licenses, notifications, usageDays } from "../../src/db/schema/index.ts";
import { insertLicense } from "../../src/features/licenses/service.ts";
import {
  fitsWidth,
  followNav,
  headersOf,
  listeningDepot,
  offOrigin,
  openPage,
  PHONE,
  rowUnder,
  signInAs,
} from "../helpers/browser.ts";
import { createProduct, createUser, insertVersionRow } from "../helpers/factories.ts";
import { userWithPassword } from "../helpers/sessions.ts";

const PASSWORD = "correct horse battery";
const depot = listeningDepot();
const DAY = 86_400_000;
const REASON = "Crashes on start";

/** The text of each row's cells, trimmed. */
async function cellsOf(rows: Locator): Promise<string[][]> {
  const cells: string[][] = [];
  for (let index = 0; index < (await rows.count()); index++)
    cells.push((await rows.nth(index).locator("td").allTextContents()).map((text) => text.trim()));
  return cells;
}

/** Two products of `vendor`: Alpha with three versions (one yanked, one rolling out), Bravo a draft. */
async function world() {
  const vendor = await userWithPassword(depot.ctx, PASSWORD, { role: "vendor" });
  const customer = await userWithPassword(depot.ctx, PASSWORD);
  const alpha = await createProduct(depot.ctx, vendor, { name: "Alpha" });
  const bravo = await createProduct(depot.ctx, vendor, { name: "Bravo" });
  const version = async (
    productId: number,
    versionNumber: string,
    fields: Partial<Parameters<typeof insertVersionRow>[1]> = {},
  ) =>
    (
      await insertVersionRow(depot.ctx, {
        productId,
        versionNumber,
        title: `Release ${versionNumber}`,
        changelog: `Notes of ${versionNumber}.`,
        changelogFormat: "markdown",
        publishedAt: new Date(Date.now() - 3 * DAY),
        ...fields,
      })
    ).version;
  await version(alpha.id, "1.0.0");
  const yanked = await version(alpha.id, "1.1.0", { status: "yanked", yankReason: REASON });
  const step = new Date(Date.now() + 2 * DAY).toISOString();
  await version(alpha.id, "1.2.0", {
    rolloutPercentage: 25,
    rolloutSchedule: [{ at: step, percentage: 50 }],
  });
  await version(bravo.id, "0.1.0", { status: "draft", publishedAt: null });
  // Alpha: one license, 10 validations this week; Bravo: three licenses, 2 validations.
  const license = (productId: number) =>
    depot.ctx.db.insert(licenses).values({
      id: crypto.randomUUID(),
      key: crypto.randomUUID(),
      userId: customer.id,
      creatorId: vendor.id,
      productId,
    });
  await license(alpha.id);
  for (let n = 0; n < 3; n++) await license(bravo.id);
  const today = new Date().toISOString().slice(0, 10);
  await depot.ctx.db.insert(usageDays).values([
    { day: today, productId: alpha.id, series: "validations", detail: "VALID", count: 10 },
    { day: today, productId: bravo.id, series: "validations", detail: "VALID", count: 2 },
  ]);
  await depot.ctx.db.insert(notifications).values({
    type: "version.yanked",
    userId: customer.id,
    versionId: yanked.id,
    data: {
      product_id: alpha.id,
      product_name: "Alpha",
      version_id: yanked.id,
      version_number: "1.1.0",
      title: "Release 1.1.0",
      benefit_name: null,
      download_url: `${depot.base}/api/products/${alpha.id}/versions/${yanked.id}/download`,
      yank_reason: REASON,
    },
  });
  return { vendor, customer, alpha };
}

test("a vendor's products, versions and rollouts are tables that sort; New endpoint opens a panel", async () => {
  const { vendor, alpha } = await world();
  const w = await openPage(depot.origin);
  const { page } = w;
  try {
    await signInAs(page, depot.base, vendor.email, PASSWORD);
    const nav = page.getByRole("navigation", { name: "Dashboard", includeHidden: true });

    // Products: by name, with the counts; "Validations, 7 days" sorts up, then down.
    await followNav(nav, "Products");
    const products = page.getByRole("table", { name: "Your products" });
    await products.waitFor({ timeout: 10_000 });
    const rows = products.locator("tbody tr");
    const cells = () => cellsOf(rows);
    expect((await cells()).map((row) => row.slice(0, 5))).toEqual([
      ["Alpha", "3", "1.2.0", "1", "10"],
      ["Bravo", "1", "None yet", "3", "2"],
    ]);
    const header = products.getByRole("columnheader", { name: /Validations, 7 days/ });
    const sortButton = header.getByRole("button");
    await sortButton.click();
    expect(await header.getAttribute("aria-sort")).toBe("ascending");
    expect((await cells()).map((row) => row[0])).toEqual(["Bravo", "Alpha"]);
    await sortButton.click();
    expect(await header.getAttribute("aria-sort")).toBe("descending");
    expect((await cells()).map((row) => row[0])).toEqual(["Alpha", "Bravo"]);
    expect(await products.getByRole("link", { name: "Licenses of Alpha" }).getAttribute("href")).toBe(
      `/dashboard/products/${alpha.id}/licenses`,
    );
    expect(await fitsWidth(page)).toBe(true);

    // Versions: every version of both products, newest first; the yank with its reason.
    await followNav(nav, "Versions");
    const versions = page.getByRole("table", { name: "Versions of your products" });
    await versions.waitFor({ timeout: 10_000 });
    const versionRows = versions.locator("tbody tr");
    const versionCells = () => cellsOf(versionRows);
    const listed = await versionCells();
    expect(listed.map((row) => `${row[0]} ${row[1]} ${row[3]}`).sort()).toEqual([
      "Alpha 1.0.0 Published",
      `Alpha 1.1.0 Yanked Reason: ${REASON}`,
      "Alpha 1.2.0 Published",
      "Bravo 0.1.0 Draft",
    ]);
    expect(listed.find((row) => row[1] === "1.2.0")?.[5]).toMatch(/^25 %, then 50 % from /);
    expect(listed.find((row) => row[1] === "0.1.0")?.[4]).toBe("Not yet");
    // Sorted by product: Alpha's three first, then Bravo's draft.
    const byProduct = versions.getByRole("columnheader", { name: /Product/ });
    await byProduct.getByRole("button").click();
    expect(await byProduct.getAttribute("aria-sort")).toBe("ascending");
    expect((await versionCells()).map((row) => row[0])).toEqual(["Alpha", "Alpha", "Alpha", "Bravo"]);
    await byProduct.getByRole("button").click();
    expect((await versionCells()).map((row) => row[0])).toEqual(["Bravo", "Alpha", "Alpha", "Alpha"]);
    expect(await fitsWidth(page)).toBe(true);

    // Rollouts: only 1.2.0, at 25 % with its step ahead; its link leads to the product's page.
    await followNav(nav, "Rollouts");
    const rollouts = page.getByRole("table", { name: "Live rollouts" });
    await rollouts.waitFor({ timeout: 10_000 });
    const rolloutRows = await cellsOf(rollouts.locator("tbody tr"));
    expect(rolloutRows).toHaveLength(1);
    expect(rolloutRows[0]?.slice(0, 4)).toEqual(["Alpha", "1.2.0", "stable", "25 %"]);
    expect(rolloutRows[0]?.[4]).toMatch(/^50 % from /);
    await rollouts.getByRole("link", { name: "Change the rollout of Alpha 1.2.0" }).click();
    await page.getByRole("heading", { name: "Alpha", level: 1 }).waitFor({ timeout: 10_000 });
    expect(new URL(page.url()).pathname).toBe(`/dashboard/products/${alpha.id}`);

    // Webhooks: no form above the list until "New endpoint" opens it; Cancel closes it.
    await followNav(nav, "Webhooks");
    const open = page.getByRole("button", { name: "New endpoint" });
    await open.waitFor({ timeout: 10_000 });
    expect(await page.getByRole("form", { name: "New endpoint" }).count()).toBe(0);
    await open.click();
    const form = page.getByRole("form", { name: "New endpoint" });
    await form.waitFor({ timeout: 10_000 });
    expect(
      await form.getByLabel("URL").evaluate((input) => input.ownerDocument.activeElement === input),
    ).toBe(true);
    await page.getByRole("button", { name: "Cancel" }).click();
    await open.waitFor({ timeout: 10_000 });
    expect(await form.count()).toBe(0);

    expect(offOrigin(w)).toEqual([]);
    expect(w.problems).toEqual([]);
  } finally {
    await w.context.close();
  }
}, 90_000);

test("a customer sees a yanked version marked with its reason; Versions and Rollouts are not found", async () => {
  const { customer } = await world();
  const w = await openPage(depot.origin);
  const { page } = w;
  try {
    await signInAs(page, depot.base, customer.email, PASSWORD);
    const nav = page.getByRole("navigation", { name: "Dashboard", includeHidden: true });

    // Notifications: the yank, marked, with the vendor's reason.
    await followNav(nav, "Notifications");
    const notice = page.locator(".notification").filter({ hasText: "1.1.0" });
    await notice.waitFor({ timeout: 10_000 });
    expect(await notice.getByText("Yanked", { exact: true }).count()).toBe(1);
    expect(await notice.locator(".yank-reason").textContent()).toBe(` Reason: ${REASON}`);

    // Downloads: the latest is 1.2.0; among the older versions 1.1.0 is marked yanked, 1.0.0 is not.
    await followNav(nav, "Downloads");
    await page.getByRole("button", { name: "Older versions of Alpha" }).click();
    const older = page.locator(".version").filter({ hasText: "Release 1.1.0" });
    await older.waitFor({ timeout: 10_000 });
    expect(await older.getByText("Yanked", { exact: true }).count()).toBe(1);
    expect(await older.locator(".yank-reason").textContent()).toBe(` Reason: ${REASON}`);
    const first = page.locator(".version").filter({ hasText: "Release 1.0.0" });
    await first.waitFor({ timeout: 10_000 });
    expect(await first.locator(".yanked").count()).toBe(0);
    expect(await fitsWidth(page)).toBe(true);

    // Profile: an error beside Name goes as soon as the name changes; the success is a notice that
    // stays until dismissed.
    await followNav(nav, "Profile");
    const name = page.getByLabel("Name", { exact: true });
    await name.fill("   ");
    await page.getByRole("button", { name: "Save name" }).click();
    const nameError = page.locator("#profile-name-error");
    await nameError.waitFor({ timeout: 10_000 });
    expect(await name.getAttribute("aria-invalid")).toBe("true");
    await name.fill("Carla");
    expect(await nameError.count()).toBe(0);
    expect(await name.getAttribute("aria-invalid")).toBeNull();
    await page.getByRole("button", { name: "Save name" }).click();
    const saved = page.getByRole("status").filter({ hasText: "Your name is saved." });
    await saved.waitFor({ timeout: 10_000 });
    await Bun.sleep(500);
    expect(await saved.isVisible()).toBe(true);
    await saved.getByRole("button", { name: "Dismiss" }).click();
    expect(await saved.count()).toBe(0);

    // Ship's pages are for sellers: no link, and "Page not found" by their address.
    expect(await nav.getByRole("link", { name: "Versions", includeHidden: true }).count()).toBe(0);
    for (const path of ["versions", "rollouts"]) {
      await page.goto(`${depot.base}/dashboard/${path}`, { waitUntil: "networkidle" });
      await page.getByRole("heading", { name: "Page not found", level: 1 }).waitFor({ timeout: 10_000 });
    }
    expect(offOrigin(w)).toEqual([]);
    expect(w.problems).toEqual([]);
  } finally {
    await w.context.close();
  }
}, 90_000);

test("a product's licenses are a table that sorts, with a row's panel right under it", async () => {
  const vendor = await userWithPassword(depot.ctx, PASSWORD, { role: "vendor" });
  const product = await createProduct(depot.ctx, vendor, { name: "Keyed" });
  const ann = await createUser(depot.ctx, { name: "Ann Archer" });
  const zed = await createUser(depot.ctx, { name: "Zed Zimmer" });
  // Ann's first, so the list (newest first) shows Zed's above it. Ann's never expires; Zed's does.
  await insertLicense(depot.ctx, { userId: ann.id, creatorId: vendor.id, productId: product.id, maxIps: 3 });
  await insertLicense(depot.ctx, {
    userId: zed.id,
    creatorId: vendor.id,
    productId: product.id,
    expires: new Date("2030-06-30T12:00:00Z"),
    maxMachines: 2,
    maxIps: null,
  });
  const w = await openPage(depot.origin);
  const { page } = w;
  try {
    await signInAs(page, depot.base, vendor.email, PASSWORD);
    await page.goto(`${depot.base}/dashboard/products/${product.id}/licenses`, { waitUntil: "networkidle" });
    const table = page.getByRole("table", { name: "Licenses" });
    await table.waitFor({ timeout: 10_000 });
    expect(await headersOf(table)).toEqual([
      "Key",
      "Owner",
      "Policy",
      "Status",
      "Seats",
      "IPs",
      "Expires",
      "Actions",
    ]);
    const rows = table.locator("tbody").getByRole("row");
    // Each license's cells but the key's and the actions' (not the row of a panel under one).
    const licenseRows = rows.filter({ has: page.getByRole("button", { name: "Machines", exact: true }) });
    const facts = async () => (await cellsOf(licenseRows)).map((cells) => cells.slice(1, 7));
    expect(await facts()).toEqual([
      [`Zed Zimmer ${zed.email}`, "—", "Active", "0/2", "0 (no limit)", expect.stringMatching(/2030/)],
      [`Ann Archer ${ann.email}`, "—", "Active", "0 (uncounted)", "0/3", "Never"],
    ]);
    const owners = async () => (await facts()).map((cells) => cells[0]?.split(" ")[0]);

    // By owner, then by expiry (never after any date), each way.
    const byOwner = table.getByRole("columnheader", { name: /Owner/ });
    await byOwner.getByRole("button").click();
    expect(await byOwner.getAttribute("aria-sort")).toBe("ascending");
    expect(await owners()).toEqual(["Ann", "Zed"]);
    const byExpiry = table.getByRole("columnheader", { name: /Expires/ });
    await byExpiry.getByRole("button").click();
    expect(await byExpiry.getAttribute("aria-sort")).toBe("ascending");
    expect(await byOwner.getAttribute("aria-sort")).toBeNull();
    expect(await owners()).toEqual(["Zed", "Ann"]);
    await byExpiry.getByRole("button").click();
    expect(await byExpiry.getAttribute("aria-sort")).toBe("descending");
    expect(await owners()).toEqual(["Ann", "Zed"]);

    // Ann's machines open in the row right under hers, and follow it when the order changes.
    const annRow = rows.filter({ hasText: ann.email });
    const zedRow = rows.filter({ hasText: zed.email });
    const machines = annRow.getByRole("button", { name: "Machines" });
    await machines.click();
    expect(await machines.getAttribute("aria-expanded")).toBe("true");
    const panel = page.locator(`#${await machines.getAttribute("aria-controls")}`);
    await rowUnder(annRow).getByText("No machines").waitFor({ timeout: 10_000 });
    expect(
      await rowUnder(annRow)
        .locator(`#${await panel.getAttribute("id")}`)
        .count(),
    ).toBe(1);
    await byExpiry.getByRole("button").click();
    expect(await owners()).toEqual(["Zed", "Ann"]);
    expect(await rowUnder(annRow).getByText("No machines").count()).toBe(1);
    // On a phone the panel keeps to the screen, though the table is wider and scrolls.
    const box = await panel.boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= PHONE.width).toBe(true);
    expect(await fitsWidth(page)).toBe(true);

    // One panel at a time: Zed's addresses close Ann's machines.
    const ips = zedRow.getByRole("button", { name: "IPs" });
    await ips.click();
    await rowUnder(zedRow).getByText("No addresses registered").waitFor({ timeout: 10_000 });
    expect(await panel.count()).toBe(0);
    expect(await machines.getAttribute("aria-expanded")).toBe("false");
    expect(await rowUnder(annRow).count()).toBe(0);

    expect(offOrigin(w)).toEqual([]);
    expect(w.problems).toEqual([]);
  } finally {
    await w.context.close();
  }
}, 60_000);
