// The set-password page in a real browser at a phone's width: a link made through the API greets its
// user, a mismatch is caught before sending, the server's 422 shows beside its field, and the password
// set there signs in. The harness is tests/helpers/browser.ts.
import { beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { bearer, readJson } from "../helpers/app.ts";
import { fitsWidth, listeningDepot, openMenu, openPage } from "../helpers/browser.ts";
import { createUser, tokenFor } from "../helpers/factories.ts";
import { userWithPassword } from "../helpers/sessions.ts";

const OLD_PASSWORD = "the old password";
const NEW_PASSWORD = "a fresh password 2026";

let adminToken: string;

const depot = listeningDepot();
beforeAll(async () => {
  adminToken = await tokenFor(depot.ctx, await createUser(depot.ctx, { role: "admin" }));
});

/** A link for `userId` through the admin API, pointed at the test server instead of APP_URL. */
async function linkFor(userId: number): Promise<string> {
  const response = await fetch(`${depot.base}/api/admin/users/${userId}/password-link`, {
    method: "POST",
    headers: bearer(adminToken),
  });
  expect(response.status).toBe(201);
  const url = new URL((await readJson(response)).data.url);
  return `${depot.base}${url.pathname}${url.search}`;
}

const isFocused = (page: Page, label: string) =>
  page.getByLabel(label, { exact: true }).evaluate((element) => element.matches(":focus"));

test("a real link: greeting, mismatch, the server's 422, set, then sign in with the new password", async () => {
  const user = await userWithPassword(depot.ctx, OLD_PASSWORD);
  const link = await linkFor(user.id);
  const { context, page, pageErrors } = await openPage(depot.origin);
  const setPasswordCalls: string[] = [];
  page.on("request", (request) => {
    if (request.url() === `${depot.base}/api/auth/set-password`)
      setPasswordCalls.push(request.postData() ?? "");
  });
  try {
    await page.goto(link, { waitUntil: "networkidle" });
    const submit = page.getByRole("button", { name: "Set password", exact: true });
    await submit.waitFor({ timeout: 10_000 });
    // No session, and the page stays: the link is the credential.
    expect(new URL(page.url()).pathname).toBe("/set-password");
    expect((await page.locator("main").textContent()) ?? "").toContain(`Choose a password for ${user.email}`);
    expect(await fitsWidth(page)).toBe(true);

    // By keyboard: Tab into each field, with the visible focus ring; a mismatch never leaves the page.
    await page.keyboard.press("Tab");
    expect(await isFocused(page, "New password")).toBe(true);
    expect(
      await page
        .getByLabel("New password", { exact: true })
        .evaluate((element) => element.ownerDocument.defaultView?.getComputedStyle(element).outlineWidth),
    ).toBe("3px");
    await page.keyboard.type(NEW_PASSWORD);
    await page.keyboard.press("Tab");
    expect(await isFocused(page, "Confirm password")).toBe(true);
    await page.keyboard.type(`${NEW_PASSWORD}!`);
    await page.keyboard.press("Enter");
    await page.getByText("The two passwords do not match.").waitFor({ timeout: 10_000 });
    expect(await page.getByLabel("Confirm password", { exact: true }).getAttribute("aria-invalid")).toBe(
      "true",
    );
    expect(setPasswordCalls).toEqual([]);

    // Too short: the server's own message, beside the New password field.
    await page.getByLabel("New password", { exact: true }).fill("short");
    await page.getByLabel("Confirm password", { exact: true }).fill("short");
    await submit.click();
    await page.getByText("The password field must be at least 8 characters.").waitFor({ timeout: 10_000 });
    const newPassword = page.getByLabel("New password", { exact: true });
    expect(await newPassword.getAttribute("aria-invalid")).toBe("true");
    expect(await newPassword.getAttribute("aria-describedby")).toContain("new-password-error");
    expect(setPasswordCalls).toHaveLength(1);

    await newPassword.fill(NEW_PASSWORD);
    expect(await page.locator("#new-password-error").count()).toBe(0);
    expect(await newPassword.getAttribute("aria-invalid")).toBeNull();
    await page.getByLabel("Confirm password", { exact: true }).fill(NEW_PASSWORD);
    await submit.click();
    const signIn = page.getByRole("button", { name: "Sign in", exact: true });
    await signIn.waitFor({ timeout: 10_000 });
    expect(new URL(page.url()).pathname).toBe("/sign-in");
    expect(((await page.getByRole("status").textContent()) ?? "").trim()).toBe(
      "Your password is set. Sign in.",
    );

    await page.getByLabel("Email", { exact: true }).fill(user.email);
    await page.getByLabel("Password", { exact: true }).fill(NEW_PASSWORD);
    await signIn.click();
    await openMenu(page);
    await page.getByRole("button", { name: "Sign out", exact: true }).waitFor({ timeout: 10_000 });
    expect(new URL(page.url()).pathname).toBe("/");

    // The used link now says so, with the server's one message and no form.
    await page.goto(link, { waitUntil: "networkidle" });
    await page.getByText("This password link is invalid or has expired.").waitFor({ timeout: 10_000 });
    expect(await page.getByRole("button", { name: "Set password" }).count()).toBe(0);
    expect(await fitsWidth(page)).toBe(true);
    expect(pageErrors).toEqual([]);
  } finally {
    await context.close();
  }
}, 60_000);
