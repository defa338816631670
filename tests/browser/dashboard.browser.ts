// The dashboard in a real browser at a phone's width: / lands on the sign-in form, a failed sign-in
// shows an error, every request goes to depot itself and the first load's JavaScript stays within its
// budget; the real sign-in shows 422, 429 and a network failure, signs in, keeps the session over a
// reload and signs out with the session's CSRF token.
// The harness is tests/helpers/browser.ts.
import { expect, test } from "bun:test";
import { fitsWidth, listeningDepot, offOrigin, openMenu, openPage } from "../helpers/browser.ts";
import { userWithPassword } from "../helpers/sessions.ts";

/** The first load's JavaScript, gzip-compressed (docs/dashboard.md, Dashboard). */
const FIRST_LOAD_JS_BUDGET = 120 * 1024;

const depot = listeningDepot();

test("/ lands on the sign-in form, a failed sign-in shows an error, nothing leaves depot", async () => {
  // A server with a user: an empty one asks for the first admin instead (setup.browser.ts).
  await userWithPassword(depot.ctx, "someone's password");
  const w = await openPage(depot.origin);
  try {
    const response = await w.page.goto(`${depot.base}/`, { waitUntil: "networkidle" });
    expect(response?.status()).toBe(200);
    const email = w.page.getByLabel("Email", { exact: true });
    const password = w.page.getByLabel("Password", { exact: true });
    const submit = w.page.getByRole("button", { name: "Sign in", exact: true });
    await email.waitFor({ timeout: 10_000 });
    // No session (the check answers 401): the sign-in page.
    expect(new URL(w.page.url()).pathname).toBe("/sign-in");
    await expect(password.isVisible()).resolves.toBe(true);
    await expect(submit.isVisible()).resolves.toBe(true);
    expect(await fitsWidth(w.page)).toBe(true);

    // By keyboard alone: Tab to each field, Enter submits.
    await w.page.keyboard.press("Tab");
    expect(await email.evaluate((element) => element.matches(":focus"))).toBe(true);
    // The keyboard's focus is visible: the stylesheet's ring, not just the browser's default.
    expect(
      await email.evaluate(
        (element) => element.ownerDocument.defaultView?.getComputedStyle(element).outlineWidth,
      ),
    ).toBe("3px");
    await w.page.keyboard.type("nobody@example.com");
    await w.page.keyboard.press("Tab");
    expect(await password.evaluate((element) => element.matches(":focus"))).toBe(true);
    await w.page.keyboard.type("not the password");
    await w.page.keyboard.press("Enter");

    const alert = w.page.getByRole("alert");
    await alert.waitFor({ timeout: 10_000 });
    expect(((await alert.textContent()) ?? "").trim().length).toBeGreaterThan(0);
    expect(await alert.isVisible()).toBe(true);
    expect(w.requests).toContain(`${depot.base}/api/auth/sign-in`);
    // Still on the form, ready for another try.
    await expect(submit.isEnabled()).resolves.toBe(true);

    await w.page.waitForLoadState("networkidle");
    expect(offOrigin(w)).toEqual([]);
    expect(w.problems).toEqual([]);

    // The first load's scripts: all of it from depot, within the budget once compressed.
    expect(w.scripts.size).toBeGreaterThan(0);
    const compressed = [...w.scripts.values()].reduce((sum, size) => sum + size, 0);
    console.log(`dashboard first load: ${w.scripts.size} script(s), ${compressed} bytes gzipped`);
    expect(compressed).toBeLessThan(FIRST_LOAD_JS_BUDGET);
  } finally {
    await w.context.close();
  }
}, 30_000);

const PASSWORD = "correct horse battery";

test("against the real sign-in: 422, 429 and a network failure shown; sign in, home, reload, sign out", async () => {
  const vera = await userWithPassword(depot.ctx, PASSWORD, { role: "vendor" });
  // Another account, throttled first (five failures from this address: the sixth try is refused).
  const throttled = await userWithPassword(depot.ctx, PASSWORD);
  for (let attempt = 0; attempt < 5; attempt++) {
    await fetch(`${depot.base}/api/auth/sign-in`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: throttled.email, password: "wrong password" }),
    });
  }
  const w = await openPage(depot.origin);
  const signOutHeaders: Record<string, string>[] = [];
  w.page.on("request", (request) => {
    if (request.url() === `${depot.base}/api/auth/sign-out`) signOutHeaders.push(request.headers());
  });
  try {
    await w.page.goto(`${depot.base}/`, { waitUntil: "networkidle" });
    const submit = w.page.getByRole("button", { name: "Sign in", exact: true });
    await submit.waitFor({ timeout: 10_000 });
    expect(new URL(w.page.url()).pathname).toBe("/sign-in");
    const email = w.page.getByLabel("Email", { exact: true });
    const password = w.page.getByLabel("Password", { exact: true });
    const alert = w.page.getByRole("alert");

    await email.fill(vera.email);
    await password.fill("not the password");
    await submit.click();
    await w.page.getByText("These credentials do not match our records.").waitFor({ timeout: 10_000 });
    // The field's error repeats the message: shown once, and the field is marked invalid.
    expect(await w.page.getByText("These credentials do not match our records.").count()).toBe(1);
    expect(await email.getAttribute("aria-invalid")).toBe("true");

    await email.fill(throttled.email);
    await password.fill(PASSWORD);
    await submit.click();
    await w.page.getByText(/^Too many sign-in attempts\. Please try again in \d+ seconds\.$/).waitFor();

    // The network goes away for one request.
    await w.page.route(`${depot.base}/api/auth/sign-in`, (route) => route.abort("internetdisconnected"), {
      times: 1,
    });
    await email.fill(vera.email);
    await submit.click();
    await w.page.getByText("depot could not be reached").waitFor();
    expect(await alert.isVisible()).toBe(true);

    await submit.click();
    await openMenu(w.page);
    const signOut = w.page.getByRole("button", { name: "Sign out", exact: true });
    await signOut.waitFor({ timeout: 10_000 });
    expect(new URL(w.page.url()).pathname).toBe("/");
    const text = (await w.page.locator("main").textContent()) ?? "";
    expect(text).toContain(vera.name);
    expect(text).toContain("vendor");
    expect(await fitsWidth(w.page)).toBe(true);
    const [cookie] = (await w.context.cookies()).filter((c) => c.name === "depot_session");
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/" });

    // A reload keeps the session (GET /api/auth/session decides).
    await w.page.reload({ waitUntil: "networkidle" });
    await openMenu(w.page);
    await signOut.waitFor({ timeout: 10_000 });

    await signOut.click();
    await submit.waitFor({ timeout: 10_000 });
    expect(new URL(w.page.url()).pathname).toBe("/sign-in");
    expect(signOutHeaders).toHaveLength(1);
    expect(signOutHeaders[0]?.["x-csrf-token"]).toMatch(/^\S{20,}$/);
    expect((await w.context.cookies()).filter((c) => c.name === "depot_session")).toEqual([]);

    expect(offOrigin(w)).toEqual([]);
    expect(w.problems).toEqual([]);
  } finally {
    await w.context.close();
  }
}, 30_000);
