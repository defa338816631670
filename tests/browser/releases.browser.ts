// A version's files and release in a real browser, against the real API: the vendor adds a Linux
// file to a draft, releases it, rolls it out to a quarter, yanks it with a reason and takes the yank
// back; a customer who holds the product is offered the file for their own platform first.
import { expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { artifacts, versions } from "../../src/db/schema/index.ts";
import { createLicense } from "../../src/features/licenses/service.ts";
import { fitsWidth, listeningDepot, openPage, signInAs } from "../helpers/browser.ts";
import { createProduct, createPurchase, tokenFor } from "../helpers/factories.ts";
import { patchRelease, publishRelease } from "../helpers/releases.ts";
import { userWithPassword } from "../helpers/sessions.ts";

const PASSWORD = "correct horse battery";

// Releasing a draft enqueues the version.published job in its transaction: pg-boss must take it.
const depot = listeningDepot({ jobs: "send" });

const versionRow = async (id: number) => {
  const [row] = await depot.ctx.db.select().from(versions).where(eq(versions.id, id));
  return row;
};

test("a vendor adds a file to a draft, releases it, rolls it out, yanks it and takes the yank back", async () => {
  const vendor = await userWithPassword(depot.ctx, PASSWORD, { role: "vendor" });
  const product = await createProduct(depot.ctx, vendor, { name: "Desk Clock" });
  const draft = await publishRelease(depot.base, await tokenFor(depot.ctx, vendor), product.id, {
    name: "1.0.0",
    status: "draft",
    files: [
      {
        name: "DeskClock-1.0.0.exe",
        bytes: Buffer.from("windows build"),
        platform: "windows",
        arch: "x86_64",
      },
    ],
  });
  const w = await openPage(depot.origin);
  const { page } = w;
  try {
    await signInAs(page, depot.base, vendor.email, PASSWORD);
    await page.goto(`${depot.base}/dashboard/products/${product.id}`, { waitUntil: "networkidle" });
    const row = page.locator(".version").filter({ hasText: "1.0.0" });
    await row.getByText("Draft", { exact: true }).waitFor({ timeout: 10_000 });
    await row.getByText("Files and release (1 file)").click();
    const files = row.getByRole("table", { name: "Files of 1.0.0" });
    // The panel is drawn when it opens.
    await files.waitFor({ timeout: 10_000 });
    expect(await files.getByRole("row").count()).toBe(2);
    expect(await files.getByRole("cell", { name: "Windows x86_64" }).count()).toBe(1);
    expect(await files.getByRole("cell", { name: "no", exact: true }).count()).toBe(1);

    // Another platform's build goes up and joins the draft.
    await row.getByLabel("File", { exact: true }).setInputFiles({
      name: "DeskClock-1.0.0.AppImage",
      mimeType: "application/octet-stream",
      buffer: Buffer.from("linux build"),
    });
    await row.getByLabel("Platform").selectOption("linux");
    await row.getByLabel("Architecture").selectOption("x86_64");
    await row.getByRole("button", { name: "Add the file" }).click();
    await page.locator(".version").filter({ hasText: "2 files" }).waitFor({ timeout: 20_000 });
    const stored = await depot.ctx.db.select().from(artifacts).where(eq(artifacts.versionId, draft.id));
    expect(stored.map((a) => `${a.platform}/${a.arch}/${a.fileName}`).sort()).toEqual([
      "linux/x86_64/DeskClock-1.0.0.AppImage",
      "windows/x86_64/DeskClock-1.0.0.exe",
    ]);

    // Released: the draft badge goes, the rollout and yank controls come.
    const opened = () => page.locator(".version").filter({ hasText: "1.0.0" });
    const open = async () => {
      const details = opened().locator("details");
      if ((await details.getAttribute("open")) === null) await details.locator("summary").click();
    };
    await open();
    await opened().getByRole("button", { name: "Release 1.0.0" }).click();
    await opened().getByLabel("Rollout", { exact: true }).waitFor({ timeout: 10_000 });
    expect(await opened().getByText("Draft", { exact: true }).count()).toBe(0);
    expect((await versionRow(draft.id))?.status).toBe("published");

    // A quarter of the clients: the number beside the slider, then Save.
    await open();
    await opened().getByLabel("Rollout, percent of clients").fill("25");
    expect(await opened().getByLabel("Rollout", { exact: true }).inputValue()).toBe("25");
    await opened().getByRole("button", { name: "Save rollout" }).click();
    await opened().getByText("Rolled out to 25 %").waitFor({ timeout: 10_000 });
    expect((await versionRow(draft.id))?.rolloutPercentage).toBe(25);

    // Yanked with its reason, then back.
    await open();
    await opened().getByLabel("Reason to yank").fill("Crashes at midnight");
    await opened().getByRole("button", { name: "Yank 1.0.0" }).click();
    await opened().getByText("Yanked", { exact: true }).waitFor({ timeout: 10_000 });
    expect(await versionRow(draft.id)).toMatchObject({ status: "yanked", yankReason: "Crashes at midnight" });
    await open();
    expect(await opened().getByText("Yanked: Crashes at midnight.").count()).toBe(1);
    await opened().getByRole("button", { name: "Undo the yank" }).click();
    await opened().getByLabel("Reason to yank").waitFor({ timeout: 10_000 });
    expect((await versionRow(draft.id))?.status).toBe("published");
    expect(await fitsWidth(page)).toBe(true);
    expect(w.problems).toEqual([]);
  } finally {
    await w.context.close();
  }
}, 90_000);

test("a vendor schedules a rollout in steps, sees the next one, is told of a bad one and removes them", async () => {
  const vendor = await userWithPassword(depot.ctx, PASSWORD, { role: "vendor" });
  const token = await tokenFor(depot.ctx, vendor);
  const product = await createProduct(depot.ctx, vendor, { name: "Tide Table" });
  const version = await publishRelease(depot.base, token, product.id, {
    name: "2.0.0",
    files: [{ name: "Tide-2.0.0.exe", bytes: Buffer.from("build"), platform: "windows", arch: "x86_64" }],
  });
  await patchRelease(depot.base, token, product.id, version.id, { rollout_percentage: 10 });
  const w = await openPage(depot.origin);
  const { page } = w;
  try {
    await signInAs(page, depot.base, vendor.email, PASSWORD);
    await page.goto(`${depot.base}/dashboard/products/${product.id}`, { waitUntil: "networkidle" });
    const row = () => page.locator(".version").filter({ hasText: "2.0.0" });
    const open = async () => {
      const details = row().locator("details");
      if ((await details.getAttribute("open")) === null) await details.locator("summary").click();
    };
    await open();
    await row().getByText("No steps: the rollout stays where it is set.").waitFor({ timeout: 10_000 });

    // Two steps, typed in the viewer's local time, saved as instants in time order.
    await row().getByRole("button", { name: "Add a step" }).click();
    await row().getByRole("button", { name: "Add a step" }).click();
    await row().getByLabel("Step 1 from").fill("2031-03-09T09:30");
    await row().getByLabel("Step 1, percent of clients").fill("100");
    await row().getByLabel("Step 2 from").fill("2031-03-02T09:30");
    await row().getByLabel("Step 2, percent of clients").fill("50");
    await row().getByRole("button", { name: "Save schedule" }).click();
    const [first, second] = (await page.evaluate(() =>
      ["2031-03-02T09:30", "2031-03-09T09:30"].map((local) => new Date(local).toISOString()),
    )) as [string, string];
    await row().locator(".badge").filter({ hasText: "50 % from" }).waitFor({ timeout: 10_000 });
    expect((await versionRow(version.id))?.rolloutSchedule).toEqual([
      { at: first, percentage: 50 },
      { at: second, percentage: 100 },
    ]);
    expect(await row().getByText("Rolled out to 10 %").count()).toBe(1);

    // A step past 100 %: the server's refusal is shown and the saved schedule stays.
    await open();
    await row().getByLabel("Step 2, percent of clients").fill("150");
    await row().getByRole("button", { name: "Save schedule" }).click();
    await row().getByRole("alert").waitFor({ timeout: 10_000 });
    expect(await row().getByRole("alert").textContent()).toContain("100");
    expect((await versionRow(version.id))?.rolloutSchedule).toHaveLength(2);

    // No steps left: the schedule goes, and so does its badge.
    await row().getByRole("button", { name: "Remove step 2" }).click();
    await row().getByRole("button", { name: "Remove step 1" }).click();
    await row().getByRole("button", { name: "Save schedule" }).click();
    await row()
      .locator(".badge")
      .filter({ hasText: "% from" })
      .waitFor({ state: "detached", timeout: 10_000 });
    expect((await versionRow(version.id))?.rolloutSchedule).toBeNull();
    expect(await fitsWidth(page)).toBe(true);
    expect(w.problems).toEqual([]);
  } finally {
    await w.context.close();
  }
}, 90_000);

test("a vendor marks a file for updaters only, and back: the version's file for people follows", async () => {
  const vendor = await userWithPassword(depot.ctx, PASSWORD, { role: "vendor" });
  const token = await tokenFor(depot.ctx, vendor);
  const product = await createProduct(depot.ctx, vendor, { name: "Star Map" });
  const version = await publishRelease(depot.base, token, product.id, {
    name: "3.0.0",
    files: [
      { name: "StarMap-3.0.0.AppImage", bytes: Buffer.from("appimage"), platform: "linux", arch: "x86_64" },
      { name: "starmap_3.0.0_amd64.deb", bytes: Buffer.from("deb"), platform: "linux", arch: "x86_64" },
    ],
  });
  const stored = async (fileName: string) =>
    (await depot.ctx.db.select().from(artifacts).where(eq(artifacts.versionId, version.id))).find(
      (a) => a.fileName === fileName,
    )?.updatersOnly;
  const w = await openPage(depot.origin);
  const { page } = w;
  try {
    await signInAs(page, depot.base, vendor.email, PASSWORD);
    await page.goto(`${depot.base}/dashboard/products/${product.id}`, { waitUntil: "networkidle" });
    const row = () => page.locator(".version").filter({ hasText: "3.0.0" });
    const open = async () => {
      const details = row().locator("details");
      if ((await details.getAttribute("open")) === null) await details.locator("summary").click();
    };
    await row().getByText("StarMap-3.0.0.AppImage, ", { exact: false }).waitFor({ timeout: 10_000 });
    await open();
    const mark = () => row().getByRole("checkbox", { name: "Updaters only (StarMap-3.0.0.AppImage)" });
    expect(await mark().isChecked()).toBe(false);
    expect(
      await row().getByRole("checkbox", { name: "Updaters only (starmap_3.0.0_amd64.deb)" }).isChecked(),
    ).toBe(false);

    // Marked: the row names the .deb as the version's file, the one people are handed.
    await mark().check();
    await row().getByText("starmap_3.0.0_amd64.deb, ", { exact: false }).waitFor({ timeout: 10_000 });
    expect(await stored("StarMap-3.0.0.AppImage")).toBe(true);
    await open();
    expect(await mark().isChecked()).toBe(true);

    // And back.
    await mark().uncheck();
    await row().getByText("StarMap-3.0.0.AppImage, ", { exact: false }).waitFor({ timeout: 10_000 });
    expect(await stored("StarMap-3.0.0.AppImage")).toBe(false);
    expect(await fitsWidth(page)).toBe(true);
    expect(w.problems).toEqual([]);
  } finally {
    await w.context.close();
  }
}, 90_000);

test("a holder is offered the file for their own platform first", async () => {
  const vendor = await userWithPassword(depot.ctx, PASSWORD, { role: "vendor" });
  const customer = await userWithPassword(depot.ctx, PASSWORD, { role: "customer" });
  const product = await createProduct(depot.ctx, vendor, { name: "Pocket Atlas" });
  await publishRelease(depot.base, await tokenFor(depot.ctx, vendor), product.id, {
    name: "3.1.0",
    files: [
      { name: "Atlas-3.1.0.exe", bytes: Buffer.from("windows"), platform: "windows", arch: "x86_64" },
      { name: "Atlas-3.1.0.dmg", bytes: Buffer.from("mac"), platform: "darwin", arch: "universal" },
      { name: "Atlas-3.1.0.AppImage", bytes: Buffer.from("linux"), platform: "linux", arch: "x86_64" },
      // Squirrel.Mac's zip is for the updater: no "Download for macOS" link of its own.
      {
        name: "Atlas-3.1.0-mac.zip",
        bytes: Buffer.from("mac update"),
        platform: "darwin",
        arch: "universal",
      },
    ],
  });
  await createPurchase(depot.ctx, customer, product);
  await createLicense(
    depot.ctx,
    { id: 0, creatorId: null },
    { ownerId: String(customer.id), creatorId: String(vendor.id), productId: String(product.id) },
  );
  // Chromium's user agent here names Linux (X11).
  const c = await openPage(depot.origin);
  try {
    await signInAs(c.page, depot.base, customer.email, PASSWORD);
    await c.page.goto(`${depot.base}/dashboard/downloads`, { waitUntil: "networkidle" });
    const links = c.page.locator(".artifact-downloads a");
    await links.first().waitFor({ timeout: 10_000 });
    expect(await links.allTextContents()).toEqual([
      "Download for Linux x86_64",
      "Download for Windows x86_64",
      "Download for macOS universal",
    ]);
    const response = await c.page.request.get(
      new URL((await links.first().getAttribute("href")) ?? "", depot.base).href,
    );
    expect(response.status()).toBe(200);
    expect(await response.text()).toBe("linux");
    expect(c.problems).toEqual([]);
  } finally {
    await c.context.close();
  }
}, 60_000);
