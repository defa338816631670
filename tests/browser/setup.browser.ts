// First run in a real browser at a phone's width: on a server with no users, `/` asks for the first
// admin; a wrong code is refused beside its field and creates nobody; the printed link
// (/setup?code=…) fills the code in, creates the admin and signs them in; from then on /setup is a
// 404 and `/` is the sign-in page. The harness is tests/helpers/browser.ts.
import { expect, test } from "bun:test";
import { count } from "drizzle-orm";
import { users } from "../../src/db/schema/index.ts";
import { newSetupLink } from "../../src/features/setup/service.ts";
import { seriousViolations } from "../helpers/axe.ts";
import { fitsWidth, listeningDepot, offOrigin, openMenu, openPage } from "../helpers/browser.ts";

const depot = listeningDepot();
const userCount = async () => (await depot.ctx.db.select({ n: count() }).from(users))[0]?.n;

test("the first admin is created through /setup, signed in, and /setup is gone", async () => {
  const watched = await openPage(depot.origin);
  const { context, page, pageErrors, problems } = watched;
  try {
    // `/` on an empty server: the setup form, not the sign-in page.
    await page.goto(`${depot.base}/`, { waitUntil: "networkidle" });
    await page.getByRole("heading", { name: "Create the first admin" }).waitFor({ timeout: 10_000 });
    expect(new URL(page.url()).pathname).toBe("/");
    expect(await fitsWidth(page)).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByLabel("Setup code", { exact: true }).fill("not-the-code");
    await page.getByLabel("Name", { exact: true }).fill("First Admin");
    await page.getByLabel("Email", { exact: true }).fill("first@example.com");
    await page.getByLabel("Password", { exact: true }).fill("correct horse battery");
    await page.getByRole("button", { name: "Create admin and sign in" }).click();
    await page.locator("#setup-code-error").waitFor({ timeout: 10_000 });
    expect(await page.locator("#setup-code-error").textContent()).toBe("The setup code is invalid.");
    expect(await page.getByLabel("Setup code", { exact: true }).getAttribute("aria-invalid")).toBe("true");
    expect(await userCount()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);

    // A link as `depot serve` prints it, pointed at the test server: the code is filled in.
    const link = new URL((await newSetupLink(depot.ctx)).url);
    await page.goto(`${depot.base}${link.pathname}${link.search}`, { waitUntil: "networkidle" });
    await page.getByRole("heading", { name: "Create the first admin" }).waitFor({ timeout: 10_000 });
    expect(await page.getByLabel("Setup code", { exact: true }).inputValue()).toBe(
      link.searchParams.get("code") ?? "",
    );
    await page.getByLabel("Name", { exact: true }).fill("First Admin");
    await page.getByLabel("Email", { exact: true }).fill("first@example.com");
    await page.getByLabel("Password", { exact: true }).fill("correct horse battery");
    await page.getByRole("button", { name: "Create admin and sign in" }).click();
    // Signed in at home, the code gone from the address bar.
    await openMenu(page);
    await page.getByRole("button", { name: "Sign out", exact: true }).waitFor({ timeout: 10_000 });
    expect(new URL(page.url()).pathname).toBe("/");
    expect(new URL(page.url()).search).toBe("");
    expect(await userCount()).toBe(1);
    const cookies = await context.cookies();
    expect(cookies.map((cookie) => cookie.name)).toContain("depot_session");

    // The link works once: its page is now a 404, and a new browser at `/` gets the sign-in page.
    const again = await page.goto(`${depot.base}${link.pathname}${link.search}`);
    expect(again?.status()).toBe(404);
    await context.clearCookies();
    await page.goto(`${depot.base}/`, { waitUntil: "networkidle" });
    await page.getByRole("button", { name: "Sign in", exact: true }).waitFor({ timeout: 10_000 });
    expect(await page.getByRole("heading", { name: "Create the first admin" }).count()).toBe(0);
    expect(pageErrors).toEqual([]);
    expect(problems).toEqual([]);
    expect(offOrigin(watched)).toEqual([]);
  } finally {
    await context.close();
  }
}, 60_000);
