// The publish form's feedback in a real browser at a phone's width, against the real API: an error
// leaves its field as soon as the field is changed, a published version is announced by a message
// that does not look like one more input, and the cleared form has no progress bar left at 100 %.
import { expect, test } from "bun:test";
import { fitsWidth, listeningDepot, openPage, signInAs } from "../helpers/browser.ts";
import { createProduct } from "../helpers/factories.ts";
import { userWithPassword } from "../helpers/sessions.ts";

const PASSWORD = "correct horse battery";

// Publishing enqueues the version.published job in its transaction: pg-boss must take it.
const depot = listeningDepot({ jobs: "send" });

test("a field's error goes once the field is changed; the published message is no input; no bar stays", async () => {
  const vendor = await userWithPassword(depot.ctx, PASSWORD, { role: "vendor" });
  const product = await createProduct(depot.ctx, vendor, { name: "Feedback Tools" });
  const w = await openPage(depot.origin);
  const { page } = w;
  try {
    await signInAs(page, depot.base, vendor.email, PASSWORD);
    await page.goto(`${depot.base}/dashboard/products/${product.id}`, { waitUntil: "networkidle" });
    await page.getByText("No versions yet.").waitFor({ timeout: 10_000 });

    // Nothing filled in: the server's 422 under every field.
    await page.getByRole("button", { name: "Publish", exact: true }).click();
    const errorOf = (id: string) => page.locator(`#publish-${id}-error`);
    await errorOf("version").waitFor({ timeout: 10_000 });
    for (const id of ["file", "version", "title", "changelog"]) expect(await errorOf(id).count()).toBe(1);
    expect(await errorOf("title").textContent()).toBe("The title field is required.");

    // Filling Version takes its error away, and only its own.
    const version = page.getByLabel("Version", { exact: true });
    await version.fill("1.0.0");
    expect(await errorOf("version").count()).toBe(0);
    expect(await version.getAttribute("aria-invalid")).toBeNull();
    expect(await errorOf("title").count()).toBe(1);
    expect(await page.getByLabel("Title", { exact: true }).getAttribute("aria-invalid")).toBe("true");

    // The rest, one by one; the 422's summary never moves above the form meanwhile.
    await page.getByLabel("Title", { exact: true }).fill("Sharper");
    expect(await errorOf("title").count()).toBe(0);
    await page.getByLabel("Changelog", { exact: true }).fill("- sharper");
    expect(await errorOf("changelog").count()).toBe(0);
    await page.getByLabel("File", { exact: true }).setInputFiles({
      name: "tools-1.0.0.zip",
      mimeType: "application/zip",
      buffer: Buffer.from("the tools"),
    });
    expect(await errorOf("file").count()).toBe(0);
    expect(await page.getByLabel("File", { exact: true }).getAttribute("aria-invalid")).toBeNull();
    expect(await page.locator("form [role=alert], form .error, form .field-error").count()).toBe(0);

    await page.getByRole("button", { name: "Publish", exact: true }).click();
    const published = page.getByRole("status").filter({ hasText: "Version 1.0.0 is published." });
    await published.waitFor({ timeout: 20_000 });
    // The form is cleared, and with it the finished upload's bar.
    expect(await version.inputValue()).toBe("");
    expect(await page.locator("#publish-progress").count()).toBe(0);
    expect(await page.getByText("100 %", { exact: true }).count()).toBe(0);

    // A message, not a box like the inputs beside it: its own background, no input's border.
    const look = (selector: string) =>
      page.evaluate<{ background: string; border: string }>(`(() => {
        const style = getComputedStyle(document.querySelector(${JSON.stringify(selector)}));
        return { background: style.backgroundColor, border: style.borderTop };
      })()`);
    const message = await look("form [role=status]");
    const input = await look("#publish-version");
    const form = await look("form");
    expect(message.background).not.toBe(input.background);
    expect(message.background).not.toBe(form.background);
    expect(message.border).not.toBe(input.border);
    expect(await fitsWidth(page)).toBe(true);
    expect(w.problems).toEqual([]);
  } finally {
    await w.context.close();
  }
}, 60_000);
