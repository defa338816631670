// Lists longer than a page, in a real browser against the real API: the first page (100 items), then
// "Show more" adds the next one below. A token made while the first page was shown pushes one of the
// shown ones onto the next page: it is not listed twice. A change (a revocation) reloads as many
// pages as were shown. A next page refused shows why and keeps the
// button, which works once the server answers again. A select, which cannot show more, offers every
// candidate: the product owner and the API key creator past the first page of vendors.
import { expect, test } from "bun:test";
import { eq, inArray } from "drizzle-orm";
import type { Locator } from "playwright-core";
import { isolated } from "../../src/dashboard/app/bidi.ts";
import { roles, users } from "../../src/db/schema/index.ts";
import { createToken } from "../../src/features/tokens/service.ts";
import { fitsWidth, followNav, listeningDepot, offOrigin, openPage, signInAs } from "../helpers/browser.ts";
import { createUser } from "../helpers/factories.ts";
import { userWithPassword } from "../helpers/sessions.ts";

const PASSWORD = "correct horse battery";
const PAGE = 100;

const depot = listeningDepot();

/**
 * Waits for the list to show its `count`th row, then checks there are no more. (Not for the button
 * to go: while it loads it is renamed "Loading more …", so "Show more …" is gone before the page is.)
 */
async function expectShown(names: Locator, count: number) {
  await names.nth(count - 1).waitFor({ timeout: 10_000 });
  expect(await names.count()).toBe(count);
}

test("a list longer than a page: Show more adds the next page once, after a failure too", async () => {
  const user = await userWithPassword(depot.ctx, PASSWORD, { role: "vendor" });
  // Oldest first: "token 1" is made first, so it is listed last.
  for (let n = 1; n <= PAGE + 1; n++) await createToken(depot.ctx, user.id, { name: `token ${n}` });

  const w = await openPage(depot.origin);
  const { page } = w;
  try {
    await signInAs(page, depot.base, user.email, PASSWORD);
    await followNav(page.getByRole("navigation", { name: "Dashboard", includeHidden: true }), "Tokens");
    const names = page.locator("ul.rows .row-name");
    const more = page.getByRole("button", { name: "Show more tokens" });
    await more.waitFor({ timeout: 10_000 });
    expect(await names.count()).toBe(PAGE);
    expect(await names.first().textContent()).toBe(`token ${PAGE + 1}`);
    expect(await names.last().textContent()).toBe("token 2");

    // Made elsewhere while this page is open: "token 2" moves to the second page, beside "token 1".
    await createToken(depot.ctx, user.id, { name: "token 102" });

    // The second page refused once: its message, the list as it was, the button still there.
    let refused = 0;
    await page.route(
      (url) => url.pathname === "/api/tokens" && url.searchParams.has("page"),
      async (route) => {
        refused++;
        await route.fulfill({
          status: 503,
          contentType: "application/json",
          body: JSON.stringify({ message: "depot is restarting." }),
        });
      },
    );
    await more.click();
    await page.getByRole("alert").filter({ hasText: "depot is restarting." }).waitFor({ timeout: 10_000 });
    expect(refused).toBe(1);
    expect(await names.count()).toBe(PAGE);
    expect(await more.isEnabled()).toBe(true);

    // Answered: "token 1" is added; "token 2", already shown, is not shown again; no more pages.
    await page.unrouteAll();
    await more.click();
    await expectShown(names, PAGE + 1);
    expect(await more.count()).toBe(0);
    const listed = await names.allTextContents();
    expect(listed).toHaveLength(PAGE + 1);
    expect(new Set(listed).size).toBe(PAGE + 1);
    expect(listed.slice(-2)).toEqual(["token 2", "token 1"]);
    expect(listed).not.toContain("token 102");
    expect(await page.getByText("depot is restarting.").count()).toBe(0);
    expect(await fitsWidth(page)).toBe(true);

    // A reload starts again from the newest: the one made meanwhile heads the list.
    await page.reload({ waitUntil: "networkidle" });
    await more.waitFor({ timeout: 10_000 });
    expect(await names.first().textContent()).toBe("token 102");

    // Revoking one on the second page keeps the second page shown: the list after the change is
    // reloaded as far as it was shown, not cut back to its first page.
    await more.click();
    await expectShown(names, PAGE + 2);
    expect(await more.count()).toBe(0);
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Revoke token 1", exact: true }).click();
    await page.getByRole("button", { name: "Revoke token 1", exact: true }).waitFor({ state: "detached" });
    const afterRevoke = await names.allTextContents();
    expect(afterRevoke).toHaveLength(PAGE + 1);
    expect(afterRevoke.at(-1)).toBe("token 2");
    expect(afterRevoke).not.toContain("token 1");
    expect(await more.count()).toBe(0);

    expect(offOrigin(w)).toEqual([]);
    expect(w.problems).toEqual([]);
  } finally {
    await w.context.close();
  }
}, 60_000);

test("the Owner and Creator selects offer every vendor, past the first page of them", async () => {
  const admin = await userWithPassword(depot.ctx, PASSWORD, { role: "admin" });
  // Users are listed by name: "Vendor 001" … "Vendor 100" fill the first page, "Zoe" is on the second.
  for (let n = 1; n <= PAGE; n++)
    await createUser(depot.ctx, { role: "vendor", name: `Vendor ${String(n).padStart(3, "0")}` });
  const last = await createUser(depot.ctx, { role: "vendor", name: "Zoe Zeta" });
  const label = `${isolated("Zoe Zeta")} (${isolated(last.email)}, ${isolated("vendor")})`;

  const w = await openPage(depot.origin);
  const { page } = w;
  try {
    await signInAs(page, depot.base, admin.email, PASSWORD);
    await page.goto(`${depot.base}/dashboard/products/new`, { waitUntil: "networkidle" });
    const owner = page.getByLabel("Owner", { exact: true });
    await owner.waitFor({ timeout: 10_000 });
    const owners = await owner.locator("option").allTextContents();
    // The placeholder, then every vendor and admin there is.
    const candidates = await depot.ctx.db
      .select({ id: users.id })
      .from(users)
      .innerJoin(roles, eq(roles.id, users.roleId))
      .where(inArray(roles.name, ["vendor", "admin"]));
    expect(candidates.length).toBeGreaterThan(PAGE + 1);
    expect(owners).toHaveLength(1 + candidates.length);
    expect(owners).toContain(label);
    await owner.selectOption({ label });
    expect(await owner.inputValue()).toBe(String(last.id));

    await page.goto(`${depot.base}/dashboard/api-keys`, { waitUntil: "networkidle" });
    await page.getByRole("button", { name: "New API key" }).click();
    const creator = page.getByLabel("Creator", { exact: true });
    await creator.waitFor({ timeout: 10_000 });
    expect(await creator.locator("option", { hasText: "Zoe Zeta" }).count()).toBe(1);
    expect(w.problems).toEqual([]);
  } finally {
    await w.context.close();
  }
}, 60_000);
