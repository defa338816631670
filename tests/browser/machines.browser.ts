// A customer frees a seat from the dashboard, in a real browser at a phone's width against the real
// API: their license counts 2 machines and both are taken; the card lists them (name, platform, last
// seen, alive), Deactivate (after a confirm) removes one, and the app on a third machine can then
// activate. "Activate offline" exchanges a pasted request for the machine-bound file, downloaded
// through the page and verified with jose. A vendor raises an existing license's machine limit from
// the product's licenses page, and its Seats show used / max. Nothing is asked of another host.
import { expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import { eq } from "drizzle-orm";
import { createLocalJWKSet, type JSONWebKeySet, jwtVerify } from "jose";
import { licenses, machines } from "../../src/db/schema/index.ts";
import { readJson } from "../helpers/app.ts";
import {
  cellUnder,
  fitsWidth,
  followNav,
  listeningDepot,
  offOrigin,
  openPage,
  signInAs,
} from "../helpers/browser.ts";
import { apiKeyFor, createProduct, createUser } from "../helpers/factories.ts";
import { licenseThroughApi } from "../helpers/licenses.ts";
import { userWithPassword } from "../helpers/sessions.ts";

const PASSWORD = "correct horse battery";
const depot = listeningDepot();

const activate = (body: Record<string, unknown>) =>
  fetch(`${depot.base}/api/v1/licenses/activate`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

test("a customer deactivates a machine to free its seat, and activates an air-gapped one offline", async () => {
  const vendor = await createUser(depot.ctx, { role: "vendor" });
  const product = await createProduct(depot.ctx, vendor, { name: "Studio Pro" });
  const customer = await userWithPassword(depot.ctx, PASSWORD);
  const apiKey = (await apiKeyFor(depot.ctx)).key;
  const license = await licenseThroughApi(depot.base, apiKey, {
    ownerId: String(customer.id),
    creatorId: String(vendor.id),
    productId: String(product.id),
    maxMachines: 2,
  });
  const laptop = await activate({
    key: license.key,
    fingerprint: "fp-laptop",
    name: "Old laptop",
    platform: "macos-arm64",
  });
  expect(laptop.status).toBe(201);
  const laptopId = (await readJson(laptop)).machine.id;
  expect(
    (await activate({ key: license.key, fingerprint: "fp-desk", name: "Desk", platform: "windows-x64" }))
      .status,
  ).toBe(201);
  // Both seats are taken: the new machine is refused.
  expect((await activate({ key: license.key, fingerprint: "fp-new", name: "New laptop" })).status).toBe(409);

  const w = await openPage(depot.origin);
  const { page } = w;
  try {
    await signInAs(page, depot.base, customer.email, PASSWORD);
    const nav = page.getByRole("navigation", { name: "Dashboard", includeHidden: true });
    await nav.waitFor({ state: "attached", timeout: 10_000 });
    await followNav(nav, "Licenses");
    await page.getByRole("heading", { name: "Studio Pro" }).waitFor({ timeout: 10_000 });
    await page.getByRole("heading", { name: "Machines in use: 2 of 2" }).waitFor({ timeout: 10_000 });
    const machineList = page.locator(".license-machines");
    const text = (await machineList.textContent()) ?? "";
    expect(text).toContain("Old laptop");
    expect(text).toContain("macos-arm64");
    expect(text).toContain("Desk");
    expect(text).toContain("last seen");
    expect(await machineList.getByText("Active", { exact: true }).count()).toBe(2);
    expect(await fitsWidth(page)).toBe(true);

    // Deactivate, after a confirm that names the machine.
    const dialogs: string[] = [];
    page.once("dialog", (dialog) => {
      dialogs.push(dialog.message());
      void dialog.accept();
    });
    await page.getByRole("button", { name: "Deactivate Old laptop" }).click();
    await page.getByRole("heading", { name: "Machines in use: 1 of 2" }).waitFor({ timeout: 10_000 });
    expect(dialogs).toEqual([expect.stringContaining("Old laptop")]);
    expect((await machineList.textContent()) ?? "").not.toContain("Old laptop");
    expect(await depot.ctx.db.select().from(machines).where(eq(machines.id, laptopId))).toEqual([]);
    // The freed seat is the new machine's.
    expect((await activate({ key: license.key, fingerprint: "fp-new", name: "New laptop" })).status).toBe(
      201,
    );

    // Offline: free a seat again, then paste an air-gapped machine's request.
    page.once("dialog", (dialog) => void dialog.accept());
    await page.reload();
    await page.getByRole("heading", { name: "Machines in use: 2 of 2" }).waitFor({ timeout: 10_000 });
    await page.getByRole("button", { name: "Deactivate Desk" }).click();
    await page.getByRole("heading", { name: "Machines in use: 1 of 2" }).waitFor({ timeout: 10_000 });
    await page.getByRole("button", { name: "Activate offline" }).click();
    const request = Buffer.from(
      JSON.stringify({
        v: 1,
        key: license.key,
        fingerprint: "fp-vault",
        name: "Vault",
        platform: "linux-x64",
      }),
    ).toString("base64");
    await page.getByLabel("Activation request").fill(request);
    await page.getByRole("button", { name: "Get license file" }).click();
    await page.getByText("is activated.").waitFor({ timeout: 10_000 });
    await page.getByRole("heading", { name: "Machines in use: 2 of 2" }).waitFor({ timeout: 10_000 });
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download its license file" }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^depot-license-[0-9a-f-]{36}-[0-9a-f-]{36}\.lic$/);
    const file = await readFile((await download.path()) ?? "", "utf8");
    const jws = file.replace(/-----[A-Z ]+-----/g, "").replace(/\s+/g, "");
    const jwks = (await (await fetch(`${depot.base}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
    const { payload } = await jwtVerify(jws, createLocalJWKSet(jwks), { typ: "depot-license+jwt" });
    expect(payload).toMatchObject({ sub: license.id, fingerprint: "fp-vault" });

    expect(w.problems).toEqual([]);
    expect(offOrigin(w)).toEqual([]);
  } finally {
    await w.context.close();
  }
}, 60_000);

test("a vendor changes an existing license's machine limit, and its Seats show used / max", async () => {
  const vendor = await userWithPassword(depot.ctx, PASSWORD, { role: "vendor" });
  const customer = await createUser(depot.ctx, { name: "Carla Customer" });
  const product = await createProduct(depot.ctx, vendor, { name: "Seat Counter" });
  const apiKey = (await apiKeyFor(depot.ctx)).key;
  const license = await licenseThroughApi(depot.base, apiKey, {
    ownerId: String(customer.id),
    creatorId: String(vendor.id),
    productId: String(product.id),
    maxMachines: 1,
  });
  expect((await activate({ key: license.key, fingerprint: "fp-one", name: "One" })).status).toBe(201);
  // The one seat is taken.
  expect((await activate({ key: license.key, fingerprint: "fp-two", name: "Two" })).status).toBe(409);
  const maxMachines = async () =>
    (await depot.ctx.db.select().from(licenses).where(eq(licenses.id, license.id)))[0]?.maxMachines;

  const w = await openPage(depot.origin);
  const { page } = w;
  try {
    await signInAs(page, depot.base, vendor.email, PASSWORD);
    await page.goto(`${depot.base}/dashboard/products/${product.id}/licenses`, { waitUntil: "networkidle" });
    await page
      .getByRole("heading", { name: "Licenses of Seat Counter", level: 1 })
      .waitFor({ timeout: 10_000 });
    const table = page.getByRole("table", { name: "Licenses" });
    const item = table.locator("tbody").getByRole("row").filter({ hasText: customer.email });
    await item.waitFor({ timeout: 10_000 });
    const seats = await cellUnder(table, item, "Seats");
    await seats.waitFor({ timeout: 10_000 });
    expect((await seats.textContent())?.trim()).toBe("1/1");

    await item.getByRole("button", { name: "Settings" }).click();
    const settings = page.getByRole("form", { name: `Settings of the license of ${customer.email}` });
    await settings.waitFor({ timeout: 10_000 });
    const max = settings.getByLabel("Max machines", { exact: true });
    expect(await max.inputValue()).toBe("1");
    expect(await fitsWidth(page)).toBe(true);

    // A heartbeat interval out of range: the server's 422 beside it, and nothing saved.
    await max.fill("3");
    const heartbeat = settings.getByLabel("Heartbeat seconds", { exact: true });
    await heartbeat.fill("5");
    await settings.getByRole("button", { name: "Save settings" }).click();
    const heartbeatError = settings.locator(".field-error");
    await heartbeatError.waitFor({ timeout: 10_000 });
    expect(await heartbeatError.textContent()).toBe(
      "The heartbeat seconds field must be between 10 and 86400.",
    );
    expect(await heartbeat.getAttribute("aria-invalid")).toBe("true");
    expect(await maxMachines()).toBe(1);

    // Without it, the new limit is saved and the list shows the seats used / max.
    await heartbeat.fill("");
    await settings.getByRole("button", { name: "Save settings" }).click();
    const seatsSay = async (text: string) => {
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline && (await seats.textContent())?.trim() !== text) await Bun.sleep(100);
    };
    await seatsSay("1/3");
    expect((await seats.textContent())?.trim()).toBe("1/3");
    expect(await settings.count()).toBe(0);
    expect(await maxMachines()).toBe(3);
    // The raised limit is real: a second machine now activates.
    expect((await activate({ key: license.key, fingerprint: "fp-two", name: "Two" })).status).toBe(201);
    await page.reload({ waitUntil: "networkidle" });
    await seats.waitFor({ timeout: 10_000 });
    expect((await seats.textContent())?.trim()).toBe("2/3");

    expect(w.problems).toEqual([]);
    expect(offOrigin(w)).toEqual([]);
  } finally {
    await w.context.close();
  }
}, 60_000);
