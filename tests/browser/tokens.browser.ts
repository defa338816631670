// The Tokens and Profile pages in a real browser at a phone's width, against the real API: a vendor
// signs in, sees the unread badge, creates a versions.publish token (a 422 first, beside its field),
// sees it once with a Copy button, uses it from here as a bearer, revokes it (it answers 401 and leaves
// the list), then signs out everywhere from Profile and lands on sign-in. A customer, whose role has
// nothing to give, in a browser without a clipboard gets Copy's fallback.
import { expect, test } from "bun:test";
import { notifications } from "../../src/db/schema/index.ts";
import { bearer, readJson } from "../helpers/app.ts";
import { fitsWidth, followNav, listeningDepot, offOrigin, openPage, signInAs } from "../helpers/browser.ts";
import { createProduct, insertVersionRow } from "../helpers/factories.ts";
import { signIn, userWithPassword } from "../helpers/sessions.ts";

const PASSWORD = "correct horse battery";

const depot = listeningDepot();

/** One unread notification for `userId`, about a version of a product of theirs. */
async function unreadNotificationFor(userId: number) {
  const product = await createProduct(depot.ctx, { id: userId });
  const { version } = await insertVersionRow(depot.ctx, {
    productId: product.id,
    versionNumber: "1.0.0",
    title: "First",
    changelog: "c",
    changelogFormat: "markdown",
    publishedBy: userId,
  });
  await depot.ctx.db.insert(notifications).values({
    type: "version.published",
    userId,
    versionId: version?.id ?? 0,
    data: {
      product_id: product.id,
      product_name: product.name,
      version_id: version?.id ?? 0,
      version_number: "1.0.0",
      title: "First",
      benefit_name: null,
      download_url: "http://depot.test/x",
    },
  });
}

test("a vendor creates a token, sees it once, uses it, revokes it; Profile signs out everywhere", async () => {
  const vendor = await userWithPassword(depot.ctx, PASSWORD, { role: "vendor" });
  await unreadNotificationFor(vendor.id);
  // A second browser's session, which "Sign out everywhere" must end too.
  const elsewhere = await signIn(depot.base, vendor.email, PASSWORD);
  const w = await openPage(depot.origin, { permissions: ["clipboard-read", "clipboard-write"] });
  const { page } = w;
  try {
    await signInAs(page, depot.base, vendor.email, PASSWORD);

    // The sidebar (grouped: Sell, Ship, You), with the unread count.
    const nav = page.getByRole("navigation", { name: "Dashboard", includeHidden: true });
    await nav.waitFor({ state: "attached", timeout: 10_000 });
    expect(await nav.getByRole("link", { includeHidden: true }).allTextContents()).toEqual([
      "Home",
      "Products",
      "Licenses",
      "Purchases",
      "Versions",
      "Rollouts",
      "Webhooks",
      "Downloads",
      "Notifications",
      "Tokens",
      "Profile",
    ]);
    expect(
      await nav.getByRole("link", { name: "Home", includeHidden: true }).getAttribute("aria-current"),
    ).toBe("page");
    const badge = page.locator(".badge");
    await badge.waitFor({ timeout: 10_000 });
    expect(await badge.textContent()).toBe("1 unread notifications");

    // Tokens: the loading state while the list is on its way, then the empty state.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route(
      (url) => url.pathname === "/api/tokens",
      async (route) => {
        await held;
        await route.continue();
      },
      { times: 1 },
    );
    await followNav(nav, "Tokens");
    expect(new URL(page.url()).pathname).toBe("/dashboard/tokens");
    await page.getByText("Loading tokens…").waitFor({ timeout: 10_000 });
    release();
    await page.getByText("No tokens yet.").waitFor({ timeout: 10_000 });
    expect(
      await nav.getByRole("link", { name: "Tokens", includeHidden: true }).getAttribute("aria-current"),
    ).toBe("page");
    expect(await fitsWidth(page)).toBe(true);

    // "New token" opens the form in its panel.
    await page.getByRole("button", { name: "New token" }).click();
    // Only the role's abilities are offered: a vendor has versions.publish alone.
    const abilities = page.getByRole("group", { name: "Abilities" }).getByRole("checkbox");
    expect(await abilities.count()).toBe(1);
    const publish = page.getByRole("checkbox", { name: /versions\.publish/ });

    // The keyboard reaches the name field, with the visible focus ring.
    const name = page.getByLabel("Name", { exact: true });
    await name.focus();
    await page.keyboard.press("Shift+Tab");
    await page.keyboard.press("Tab");
    expect(await name.evaluate((element) => element.matches(":focus-visible"))).toBe(true);
    expect(
      await name.evaluate(
        (element) => element.ownerDocument.defaultView?.getComputedStyle(element).outlineWidth,
      ),
    ).toBe("3px");

    // No name: the server's 422, beside the field.
    await page.getByRole("button", { name: "Create token" }).click();
    const nameError = page.locator("#token-name-error");
    await nameError.waitFor({ timeout: 10_000 });
    expect(((await nameError.textContent()) ?? "").length).toBeGreaterThan(0);
    expect(await name.getAttribute("aria-invalid")).toBe("true");
    expect(await name.getAttribute("aria-describedby")).toBe("token-name-error");

    // Typing a name takes its error away before anything is sent again.
    await name.fill("CI publish");
    expect(await nameError.count()).toBe(0);
    expect(await name.getAttribute("aria-invalid")).toBeNull();
    await publish.check();
    await page.getByRole("button", { name: "Create token" }).click();
    const shown = page.getByLabel("Your new token");
    await shown.waitFor({ timeout: 10_000 });
    const token = await shown.inputValue();
    expect(token).toMatch(/^\d+\|[A-Za-z0-9_-]{20,}$/);
    await page.getByText("it will not be shown again").waitFor();
    expect(await fitsWidth(page)).toBe(true);

    // Copy: the clipboard holds the token (the context was granted the clipboard).
    await page.getByRole("button", { name: "Copy", exact: true }).click();
    await page.getByText("Copied to the clipboard.").waitFor({ timeout: 5_000 });
    expect(await page.evaluate<string>("navigator.clipboard.readText()")).toBe(token);

    // The token works against the API, from outside the browser, and only with what it was given.
    const listed = await fetch(`${depot.base}/api/tokens`, { headers: bearer(token) });
    expect(listed.status).toBe(200);
    expect((await readJson(listed)).data).toEqual([
      expect.objectContaining({ name: "CI publish", abilities: ["versions.publish"] }),
    ]);

    // Done: the secret is gone from the page for good; the list shows the token and its last use.
    await page.getByRole("button", { name: "Done" }).click();
    await page.getByRole("button", { name: "New token" }).waitFor();
    await page.reload({ waitUntil: "networkidle" });
    const row = page.getByRole("listitem").filter({ hasText: "CI publish" });
    await row.waitFor({ timeout: 10_000 });
    expect(await page.content()).not.toContain(token.split("|")[1]);
    const rowText = (await row.textContent()) ?? "";
    expect(rowText).toContain("versions.publish");
    expect(rowText).toContain("Last used");
    const times = row.locator("time");
    expect(await times.count()).toBe(2);
    // Dates in the viewer's locale, not the API's ISO strings.
    for (const time of await times.all()) {
      const iso = (await time.getAttribute("datetime")) ?? "";
      expect(iso).toMatch(/^\d{4}-\d\d-\d\dT/);
      const text = (await time.textContent()) ?? "";
      expect(text).toBe(
        await page.evaluate(
          (value) =>
            new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" }).format(
              new Date(value),
            ),
          iso,
        ),
      );
    }

    // Revoke, after a confirm: gone from the list, and the token is refused.
    const dialogs: string[] = [];
    page.once("dialog", (dialog) => {
      dialogs.push(dialog.message());
      void dialog.accept();
    });
    await page.getByRole("button", { name: "Revoke CI publish" }).click();
    await page.getByText("No tokens yet.").waitFor({ timeout: 10_000 });
    expect(dialogs).toEqual([expect.stringContaining("CI publish")]);
    const revoked = await fetch(`${depot.base}/api/tokens`, { headers: bearer(token) });
    expect(revoked.status).toBe(401);
    expect(await readJson(revoked)).toEqual({ message: "Unauthenticated." });

    // Profile: who is signed in, and sign out everywhere.
    await followNav(nav, "Profile");
    await page.getByRole("heading", { name: "Profile" }).waitFor({ timeout: 10_000 });
    const profile = (await page.locator("main").textContent()) ?? "";
    expect(profile).toContain(vendor.name);
    expect(profile).toContain(vendor.email);
    expect(profile).toContain("vendor");
    expect(await fitsWidth(page)).toBe(true);
    await page.getByRole("button", { name: "Sign out everywhere" }).click();
    await page.getByRole("button", { name: "Sign in", exact: true }).waitFor({ timeout: 10_000 });
    expect(new URL(page.url()).pathname).toBe("/sign-in");
    expect((await w.context.cookies()).filter((c) => c.name === "depot_session")).toEqual([]);
    const other = await fetch(`${depot.base}/api/auth/session`, { headers: { cookie: elsewhere.cookie } });
    expect(other.status).toBe(401);

    expect(offOrigin(w)).toEqual([]);
    expect(w.problems).toEqual([]);
  } finally {
    await w.context.close();
  }
}, 60_000);

test("where the browser offers no clipboard, Copy selects the token and says how to copy it", async () => {
  // A vendor: Tokens is for roles with a permission (a customer's token could do nothing a session cannot).
  const vendor = await userWithPassword(depot.ctx, PASSWORD, { role: "vendor" });
  const w = await openPage(depot.origin);
  const { page } = w;
  // As on plain http at another host, where browsers leave navigator.clipboard undefined.
  await page.addInitScript(
    "Object.defineProperty(Navigator.prototype, 'clipboard', { get: () => undefined })",
  );
  try {
    await signInAs(page, depot.base, vendor.email, PASSWORD);
    // No unread notifications: no badge.
    expect(await page.locator(".badge").count()).toBe(0);
    await followNav(page.getByRole("navigation", { name: "Dashboard", includeHidden: true }), "Tokens");
    await page.getByRole("button", { name: "New token" }).click();
    await page.getByLabel("Name", { exact: true }).fill("script");
    await page.getByRole("button", { name: "Create token" }).click();
    const shown = page.getByLabel("Your new token");
    await shown.waitFor({ timeout: 10_000 });
    await page.getByRole("button", { name: "Copy", exact: true }).click();
    await page.getByText(/Could not copy: it is selected, press Ctrl\+C/).waitFor({ timeout: 5_000 });
    const selected = await page.evaluate<string>(
      "(({ value, selectionStart, selectionEnd }) => value.slice(selectionStart, selectionEnd))(document.getElementById('created-token'))",
    );
    expect(selected).toBe(await shown.inputValue());
    expect(w.problems).toEqual([]);
  } finally {
    await w.context.close();
  }
}, 60_000);
