// A vendor supporting a customer from a license's row, in a real browser at a phone's width against
// the real API: the license's machines (name, platform, last seen, alive), freeing a seat, a machine
// whose license file still holds its seat (the warning, then the force), an offline activation with
// the file's lifetime chosen up to the license's ceiling (its file downloaded), extending the license
// and revoking it.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { readJson } from "../helpers/app.ts";
import { seriousViolations } from "../helpers/axe.ts";
import {
  cellUnder,
  fitsWidth,
  listeningDepot,
  offOrigin,
  openPage,
  rowUnder,
  signInAs,
} from "../helpers/browser.ts";
import { apiKeyFor, createProduct, createPurchase, createUser } from "../helpers/factories.ts";
import { until } from "../helpers/inbox.ts";
import { userWithPassword } from "../helpers/sessions.ts";

const PASSWORD = "correct horse battery";
const DAY = 86_400_000;
const depot = listeningDepot();

async function activate(key: string, body: Record<string, unknown>) {
  const response = await fetch(`${depot.base}/api/v1/licenses/activate`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ key, ...body }),
  });
  expect(response.status).toBe(201);
  return readJson(response);
}

test("a vendor sees a license's machines, frees seats, activates one offline, extends and revokes", async () => {
  const vendor = await userWithPassword(depot.ctx, PASSWORD, { role: "vendor" });
  const customer = await createUser(depot.ctx, { name: "Carla Customer" });
  const product = await createProduct(depot.ctx, vendor, { name: "Ultra Perms" });
  await createPurchase(depot.ctx, customer, product);
  const apiKey = (await apiKeyFor(depot.ctx)).key;
  const created = await fetch(`${depot.base}/api/v1/licenses`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": apiKey },
    body: JSON.stringify({
      ownerId: String(customer.id),
      creatorId: String(vendor.id),
      productId: String(product.id),
      maxMachines: 3,
      machineFileTtlMax: 10 * 86_400,
    }),
  });
  const license = await readJson(created);
  await activate(license.key, { fingerprint: "fp-laptop", name: "Carla's laptop", platform: "darwin-arm64" });
  await activate(license.key, {
    fingerprint: "fp-vault",
    name: "Vault",
    platform: "linux-x64",
    offline: true,
  });

  const w = await openPage(depot.origin);
  const { page } = w;
  const dialogs: string[] = [];
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.accept();
  });
  try {
    await signInAs(page, depot.base, vendor.email, PASSWORD);
    await page.goto(`${depot.base}/dashboard/products/${product.id}/licenses`, { waitUntil: "networkidle" });
    const table = page.getByRole("table", { name: "Licenses" });
    const row = table.locator("tbody").getByRole("row").filter({ hasText: "Carla Customer" });
    await row.waitFor({ timeout: 10_000 });
    await row.getByText("2/3").waitFor({ timeout: 10_000 });

    // The machines: name, platform, last seen, alive.
    const machinesButton = row.getByRole("button", { name: "Machines" });
    await machinesButton.click();
    expect(await machinesButton.getAttribute("aria-expanded")).toBe("true");
    // The panel opens in the row right under the license's.
    expect(await machinesButton.getAttribute("aria-controls")).toBe(`license-machines-${license.id}`);
    const panel = rowUnder(row).locator(`#license-machines-${license.id}`);
    const laptop = panel.locator("li.row").filter({ hasText: "Carla's laptop" });
    await laptop.waitFor({ timeout: 10_000 });
    const laptopText = (await laptop.textContent()) ?? "";
    expect(laptopText).toContain("Active");
    expect(laptopText).toContain("darwin-arm64");
    expect(laptopText).toContain("Last seen");
    const vault = panel.locator("li.row").filter({ hasText: "Vault" });
    expect((await vault.textContent()) ?? "").toContain("license file until");
    expect(await fitsWidth(page)).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);

    // Freeing the laptop's seat, after a confirm.
    await laptop.getByRole("button", { name: "Deactivate Carla's laptop" }).click();
    await until("the laptop gone", async () => (await laptop.count()) === 0, 10_000);
    await row.getByText("1/3").waitFor({ timeout: 10_000 });

    // The vault's license file holds its seat: the warning, then the force.
    await vault.getByRole("button", { name: "Deactivate Vault" }).click();
    const warning = panel.getByRole("alert").filter({ hasText: "keeps its seat" });
    await warning.waitFor({ timeout: 10_000 });
    expect((await warning.textContent()) ?? "").toContain("keeps working offline until the file expires");
    await warning.getByRole("button", { name: "Deactivate anyway Vault" }).click();
    await panel.getByText("No machines").waitFor({ timeout: 10_000 });
    await row.getByText("0/3").waitFor({ timeout: 10_000 });

    // Offline activation: the lifetime offered up to the license's ceiling (10 days).
    await panel.getByRole("button", { name: "Activate offline" }).click();
    const days = panel.getByLabel("License file valid for (days)");
    expect(await days.getAttribute("max")).toBe("10");
    expect(await days.inputValue()).toBe("10");
    const request = Buffer.from(
      JSON.stringify({ v: 1, key: license.key, fingerprint: "fp-plant", name: "Plant PC" }),
    ).toString("base64");
    await panel.getByLabel("Activation request").fill(request);
    await days.fill("11");
    await panel.getByRole("button", { name: "Get license file" }).click();
    await panel.getByText("Choose a whole number of days from 1 to 10.").waitFor({ timeout: 10_000 });
    await days.fill("2");
    await panel.getByRole("button", { name: "Get license file" }).click();
    await panel.getByText("Plant PC is activated.").waitFor({ timeout: 10_000 });
    const until2 = await panel.locator("form time").getAttribute("datetime");
    expect(Math.abs(Date.parse(until2 ?? "") - (Date.now() + 2 * DAY))).toBeLessThan(120_000);
    const download = page.waitForEvent("download");
    await panel.getByRole("button", { name: "Download its license file" }).click();
    const saved = await download;
    expect(readFileSync((await saved.path()) ?? "", "utf8")).toContain("-----BEGIN DEPOT LICENSE FILE-----");
    await panel.locator("li.row").filter({ hasText: "Plant PC" }).waitFor({ timeout: 10_000 });
    await row.getByText("1/3").waitFor({ timeout: 10_000 });

    // Extend: a new expiry from the settings.
    await row.getByRole("button", { name: "Settings" }).click();
    const settings = rowUnder(row).getByRole("form", {
      name: `Settings of the license of ${customer.email}`,
    });
    await settings.getByLabel("Expires", { exact: true }).fill("2031-01-31");
    await settings.getByRole("button", { name: "Save settings" }).click();
    const expires = (await cellUnder(table, row, "Expires")).locator("time");
    await until(
      "the new expiry",
      async () => /^2031-0[12]-/.test((await expires.getAttribute("datetime")) ?? ""),
      10_000,
    );

    // Revoke, after a confirm.
    await row.getByRole("button", { name: "Revoke" }).click();
    await row.getByText("Revoked").waitFor({ timeout: 10_000 });
    // The vault's confirm came before the server said its file holds the seat; the force asks no more.
    expect(dialogs).toEqual([
      expect.stringContaining("Carla's laptop"),
      expect.stringContaining("Vault"),
      expect.stringContaining(customer.email),
    ]);
    expect(w.problems).toEqual([]);
    expect(offOrigin(w)).toEqual([]);
  } finally {
    await w.context.close();
  }
});
