// The publish form in a real browser at a phone's width, against the real API. Its feedback: an
// error leaves its field as soon as the field is changed, a published version is announced by a
// message that does not look like one more input, and the cleared form has no progress bar left at
// 100 %. Who sees it: a product the reader does not manage is "Product not found." (its page and its
// licenses), a manager who may not publish gets no form and no Delete, and a reader who lost the
// right while the page was open is told so before a byte of the file goes up.
import { expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { artifacts, products, versions } from "../../src/db/schema/index.ts";
import { fitsWidth, listeningDepot, offOrigin, openPage, signInAs } from "../helpers/browser.ts";
import { createProduct, createRole, createUser, insertVersionRow } from "../helpers/factories.ts";
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

test("another vendor's product is not found, page and licenses; a manager who may not publish gets no form", async () => {
  const vendor = await userWithPassword(depot.ctx, PASSWORD, { role: "vendor" });
  const other = await createUser(depot.ctx, { role: "vendor" });
  // Listed: every signed-in user may read it through the API, yet it is not this vendor's to manage.
  const theirs = await createProduct(depot.ctx, other, { name: "Their Tools" });
  await insertVersionRow(
    depot.ctx,
    {
      productId: theirs.id,
      versionNumber: "2.0.0",
      title: "Theirs",
      changelog: "- theirs",
      changelogFormat: "markdown",
      publishedBy: other.id,
    },
    { fileName: "theirs.zip", contentType: "application/zip" },
  );
  const w = await openPage(depot.origin);
  const { page } = w;
  try {
    await signInAs(page, depot.base, vendor.email, PASSWORD);
    for (const path of ["", "/licenses"]) {
      await page.goto(`${depot.base}/dashboard/products/${theirs.id}${path}`, { waitUntil: "networkidle" });
      await page.getByRole("alert").getByText("Product not found.").waitFor({ timeout: 10_000 });
      expect(await page.locator("main form, main button, main .version").count()).toBe(0);
      expect(await page.getByRole("heading", { name: "Their Tools" }).count()).toBe(0);
      expect(await fitsWidth(page)).toBe(true);
    }
    expect(w.problems).toEqual([]);
  } finally {
    await w.context.close();
  }

  // products.manage opens every product, and publishing stays its owners': no form, no Delete.
  const role = await createRole(depot.ctx, ["products.manage", "versions.publish"]);
  const manager = await userWithPassword(depot.ctx, PASSWORD, { role: role.name });
  const m = await openPage(depot.origin);
  try {
    await signInAs(m.page, depot.base, manager.email, PASSWORD);
    await m.page.goto(`${depot.base}/dashboard/products/${theirs.id}`, { waitUntil: "networkidle" });
    await m.page.getByRole("heading", { name: "Their Tools", level: 1 }).waitFor({ timeout: 10_000 });
    await m.page.getByRole("link", { name: "Download 2.0.0" }).waitFor({ timeout: 10_000 });
    const productNav = m.page.getByRole("navigation", { name: "Product" });
    // Settings is the admin API's: not for products.manage.
    expect(await productNav.getByRole("link", { includeHidden: true }).allTextContents()).toEqual([
      "Licenses",
    ]);
    expect(await m.page.getByRole("button", { name: "Delete 2.0.0" }).count()).toBe(0);
    expect(await m.page.getByRole("heading", { name: "Publish a version" }).count()).toBe(0);
    expect(await m.page.getByText("The product's publishers add them.").count()).toBe(0);
    await productNav.getByRole("link", { name: "Licenses" }).click();
    await m.page.getByRole("button", { name: "New license" }).waitFor({ timeout: 10_000 });
    expect(offOrigin(m)).toEqual([]);
    expect(m.problems).toEqual([]);
  } finally {
    await m.context.close();
  }
}, 60_000);

test("a vendor who lost the product while its page was open is told so before the file goes up", async () => {
  const vendor = await userWithPassword(depot.ctx, PASSWORD, { role: "vendor" });
  const successor = await createUser(depot.ctx, { role: "vendor" });
  const product = await createProduct(depot.ctx, vendor, { name: "Handed Over" });
  const w = await openPage(depot.origin);
  const { page } = w;
  try {
    await signInAs(page, depot.base, vendor.email, PASSWORD);
    await page.goto(`${depot.base}/dashboard/products/${product.id}`, { waitUntil: "networkidle" });
    await page.getByRole("heading", { name: "Publish a version" }).waitFor({ timeout: 10_000 });
    const uploads: string[] = [];
    page.on("request", (request) => {
      if (new URL(request.url()).pathname.startsWith("/api/uploads")) uploads.push(request.method());
    });

    // Meanwhile an admin hands the product to another vendor.
    await depot.ctx.db.update(products).set({ userId: successor.id }).where(eq(products.id, product.id));
    await page.getByLabel("File", { exact: true }).setInputFiles({
      name: "handed-1.0.0.zip",
      mimeType: "application/zip",
      buffer: Buffer.alloc(3 * 1024 * 1024, 7),
    });
    await page.getByLabel("Version", { exact: true }).fill("1.0.0");
    await page.getByLabel("Title", { exact: true }).fill("Too late");
    await page.getByLabel("Changelog", { exact: true }).fill("- too late");
    await page.getByRole("button", { name: "Publish", exact: true }).click();
    await page
      .getByRole("alert")
      .getByText("You may not publish versions of this product.")
      .waitFor({ timeout: 10_000 });
    expect(uploads).toEqual([]);
    expect(await page.locator("#publish-progress").count()).toBe(0);
    // What was typed stays; nothing was made.
    expect(await page.getByLabel("Title", { exact: true }).inputValue()).toBe("Too late");
    expect(await depot.ctx.db.select().from(versions).where(eq(versions.productId, product.id))).toEqual([]);
    expect(w.problems).toEqual([]);
  } finally {
    await w.context.close();
  }
}, 60_000);

test("choosing a file shows the platform its name says; the vendor changes it and that is what is stored", async () => {
  const vendor = await userWithPassword(depot.ctx, PASSWORD, { role: "vendor" });
  const product = await createProduct(depot.ctx, vendor, { name: "Acme Notes" });
  const w = await openPage(depot.origin);
  const { page } = w;
  try {
    await signInAs(page, depot.base, vendor.email, PASSWORD);
    await page.goto(`${depot.base}/dashboard/products/${product.id}`, { waitUntil: "networkidle" });
    await page.getByText("No versions yet.").waitFor({ timeout: 10_000 });
    const form = page.locator("form").filter({ hasText: "Publish a version" });
    const platform = form.getByLabel("Platform", { exact: true });
    const arch = form.getByLabel("Architecture", { exact: true });
    expect(await platform.inputValue()).toBe("any");

    await form.getByLabel("File", { exact: true }).setInputFiles({
      name: "Acme Notes Setup 1.4.0.exe",
      mimeType: "application/octet-stream",
      buffer: Buffer.from("windows installer"),
    });
    expect(await platform.inputValue()).toBe("windows");
    expect(await arch.inputValue()).toBe("any");
    const hint = form.locator("#publish-platform-hint");
    expect(await hint.textContent()).toContain("Read from the file's name: Windows, any architecture.");
    expect(await platform.getAttribute("aria-describedby")).toContain("publish-platform-hint");

    // A Mac build: what the name says, and the vendor's own choice of arch.
    await form.getByLabel("File", { exact: true }).setInputFiles({
      name: "Acme-Notes-1.4.0-arm64.dmg",
      mimeType: "application/octet-stream",
      buffer: Buffer.from("mac disk image"),
    });
    expect([await platform.inputValue(), await arch.inputValue()]).toEqual(["darwin", "aarch64"]);
    await arch.selectOption("universal");
    await form.getByLabel("Version", { exact: true }).fill("1.4.0");
    await form.getByLabel("Title", { exact: true }).fill("Notes");
    await form.getByLabel("Changelog", { exact: true }).fill("- notes");
    await form.getByRole("button", { name: "Publish", exact: true }).click();
    await page
      .getByRole("status")
      .filter({ hasText: "Version 1.4.0 is published." })
      .waitFor({ timeout: 20_000 });
    const [row] = await depot.ctx.db.select().from(versions).where(eq(versions.productId, product.id));
    const stored = await depot.ctx.db
      .select()
      .from(artifacts)
      .where(eq(artifacts.versionId, row?.id ?? 0));
    expect(stored.map((a) => [a.fileName, a.platform, a.arch, a.platformInferred, a.archInferred])).toEqual([
      ["Acme-Notes-1.4.0-arm64.dmg", "darwin", "universal", false, false],
    ]);
    expect(await page.locator(".notice.warning").count()).toBe(0);

    // A name that is not semver is published, with the server's warning shown under the message.
    await form.getByLabel("File", { exact: true }).setInputFiles({
      name: "acme-notes-themes.zip",
      mimeType: "application/zip",
      buffer: Buffer.from("themes"),
    });
    expect(await hint.textContent()).toContain("every platform's updates offer it");
    await form.getByLabel("Version", { exact: true }).fill("2024-spring");
    await form.getByLabel("Title", { exact: true }).fill("Themes");
    await form.getByLabel("Changelog", { exact: true }).fill("- themes");
    await form.getByRole("button", { name: "Publish", exact: true }).click();
    await page
      .getByRole("status")
      .filter({ hasText: "Version 2024-spring is published." })
      .waitFor({ timeout: 20_000 });
    expect(
      await page.getByRole("alert").filter({ hasText: "no update feed will ever offer it" }).textContent(),
    ).toBe(
      "2024-spring is not a semantic version (like 1.2.0 or 2.0.0-beta.1): it can be listed and downloaded, but no update feed will ever offer it.",
    );
    expect(w.problems).toEqual([]);
  } finally {
    await w.context.close();
  }
}, 60_000);
