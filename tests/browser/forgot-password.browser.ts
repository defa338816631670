// "Forgot password?" on the sign-in page in a real browser: with SMTP_URL the page says a link is on
// its way (the same words for an address nobody has, and the e-mail is queued for one that has an
// account); the API's by_email false is shown as "ask an admin". The harness is tests/helpers/browser.ts.
import { expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { selectRows } from "../../src/db/rows.ts";
import { fitsWidth, listeningDepot, openPage } from "../helpers/browser.ts";
import { userWithPassword } from "../helpers/sessions.ts";

// Nothing listens on the SMTP port: the e-mail job is queued (and would be retried), the page's answer is what is tested.
const depot = listeningDepot({ env: { SMTP_URL: "smtp://127.0.0.1:9" }, jobs: "send" });

const queuedLinks = async () => {
  const [row] = await selectRows<{ n: number }>(
    depot.ctx.db,
    sql`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'password-link.email'`,
  );
  return Number(row?.n ?? 0);
};

test("asking for a link from the sign-in page: the same answer for a known and an unknown address", async () => {
  const user = await userWithPassword(depot.ctx, "a forgotten password");
  const w = await openPage(depot.origin);
  try {
    await w.page.goto(`${depot.base}/sign-in`, { waitUntil: "networkidle" });
    const email = w.page.getByLabel("Email", { exact: true });
    const forgot = w.page.getByRole("button", { name: "Forgot password?", exact: true });
    await forgot.waitFor({ timeout: 10_000 });
    expect(await fitsWidth(w.page)).toBe(true);

    // No address typed yet: the page asks for one and sends nothing.
    await forgot.click();
    const status = w.page.getByRole("status");
    await expect(status.textContent()).resolves.toBe("Type your e-mail address above first.");

    await email.fill(user.email);
    await forgot.click();
    await w.page.getByText(`If ${user.email} has an account`).waitFor({ timeout: 10_000 });
    expect(await status.textContent()).toContain("a link to set a new password is on its way");
    expect(await queuedLinks()).toBe(1);

    await email.fill("nobody-here@example.com");
    await forgot.click();
    await w.page.getByText("If nobody-here@example.com has an account").waitFor({ timeout: 10_000 });
    expect(await queuedLinks()).toBe(1);
    expect(w.pageErrors).toEqual([]);
  } finally {
    await w.context.close();
  }
}, 60_000);

test("without e-mail the page sends the person to an admin", async () => {
  const w = await openPage(depot.origin);
  try {
    // The server's answer without SMTP_URL, as the API test (tests/forgot-password.test.ts) checks it.
    await w.context.route(`${depot.base}/api/auth/forgot-password`, (route) =>
      route.fulfill({ status: 200, contentType: "application/json", body: '{"data":{"by_email":false}}' }),
    );
    await w.page.goto(`${depot.base}/sign-in`, { waitUntil: "networkidle" });
    await w.page.getByLabel("Email", { exact: true }).fill("someone@example.com");
    await w.page.getByRole("button", { name: "Forgot password?", exact: true }).click();
    await w.page.getByText("This depot sends no e-mail.").waitFor({ timeout: 10_000 });
    expect(await w.page.getByRole("status").textContent()).toContain("Ask an admin for a set-password link");
  } finally {
    await w.context.close();
  }
}, 60_000);
