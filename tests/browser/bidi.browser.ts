// Users' text with Unicode's directional controls, in a real browser: a title ending in U+202E
// (RIGHT-TO-LEFT OVERRIDE) once showed the version 9.0.1 beside it as 1.0.9. The hostile values go
// straight into the database (whatever the API lets in), and on each page the text laid out next to
// them must still read left to right, character by character, as Chromium places it.
import { expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import type { Page } from "playwright-core";
import { notifications, products, users, type versions } from "../../src/db/schema/index.ts";
import { createLicense } from "../../src/features/licenses/service.ts";
import { listeningDepot, openPage, signInAs } from "../helpers/browser.ts";
import { createProduct, createPurchase, insertVersionRow } from "../helpers/factories.ts";
import { userWithPassword } from "../helpers/sessions.ts";

const PASSWORD = "correct horse battery";
/** RIGHT-TO-LEFT OVERRIDE: everything after it, up to the end of its paragraph or isolate, is drawn backwards. */
const RLO = "\u202E";

const depot = listeningDepot();

/**
 * Whether the first text node under <main> holding `text` draws it left to right: each character's
 * box starts right of the one before. Null when no text node holds it.
 */
function readsLeftToRight(page: Page, text: string): Promise<boolean | null> {
  return page.evaluate(`((text) => {
    const walker = document.createTreeWalker(document.querySelector("main"), NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const at = node.data.indexOf(text);
      if (at < 0) continue;
      const lefts = [...text].map((_, i) => {
        const range = document.createRange();
        range.setStart(node, at + i);
        range.setEnd(node, at + i + 1);
        return range.getBoundingClientRect().left;
      });
      return lefts.every((left, i) => i === 0 || left > lefts[i - 1]);
    }
    return null;
  })(${JSON.stringify(text)})`);
}

async function version(
  productId: number,
  publisher: number,
  fields: Partial<typeof versions.$inferInsert>,
  fileName = "a.zip",
) {
  const { version: row } = await insertVersionRow(
    depot.ctx,
    {
      productId,
      versionNumber: "0.0.0",
      title: "t",
      changelog: "- a change",
      changelogFormat: "markdown",
      publishedBy: publisher,
      ...fields,
    },
    { fileName, fileSize: 1024, contentType: "application/zip" },
  );
  return row;
}

test("a name, title, version or file name ending in U+202E leaves the text beside it in order", async () => {
  const vendor = await userWithPassword(depot.ctx, PASSWORD, { role: "vendor" });
  const customer = await userWithPassword(depot.ctx, PASSWORD);
  await depot.ctx.db
    .update(users)
    .set({ name: `Mallory${RLO}` })
    .where(eq(users.id, customer.id));
  const product = await createProduct(depot.ctx, vendor);
  await depot.ctx.db
    .update(products)
    .set({ name: `Relay${RLO}` })
    .where(eq(products.id, product.id));
  // The older version: its number and file name end in the override, its title comes after the number.
  await version(
    product.id,
    vendor.id,
    {
      versionNumber: `4.0.0${RLO}`,
      title: "Plain words",
      downloads: 7,
      createdAt: new Date(Date.now() - 86_400_000),
    },
    `setup${RLO}txt.exe`,
  );
  // The newest, which Downloads shows: its title ends in the override, the number comes after it.
  const latest = await version(product.id, vendor.id, { versionNumber: "9.0.1", title: `Hostile${RLO}` });
  await depot.ctx.db.insert(notifications).values({
    type: "version.published",
    userId: customer.id,
    versionId: latest.id,
    data: {
      product_id: product.id,
      product_name: `Relay${RLO}`,
      version_id: latest.id,
      version_number: "7.0.2",
      title: "Quiet",
      benefit_name: null,
      download_url: `http://depot.test/api/products/${product.id}/versions/${latest.id}/download`,
    },
  });
  await createPurchase(depot.ctx, customer, product);
  await createLicense(
    depot.ctx,
    { id: 0, creatorId: null },
    { ownerId: String(customer.id), creatorId: String(vendor.id), productId: String(product.id) },
  );

  // The laptop's width: the texts measured stay on one line.
  const c = await openPage(depot.origin, { viewport: null });
  try {
    await signInAs(c.page, depot.base, customer.email, PASSWORD);
    await c.page.goto(`${depot.base}/dashboard/downloads`, { waitUntil: "networkidle" });
    await c.page
      .getByRole("link", { name: /^Download/ })
      .first()
      .waitFor({ timeout: 10_000 });
    expect(await readsLeftToRight(c.page, "9.0.1")).toBe(true);

    await c.page.goto(`${depot.base}/dashboard/notifications`, { waitUntil: "networkidle" });
    await c.page.getByText("Quiet").waitFor({ timeout: 10_000 });
    expect(await readsLeftToRight(c.page, "7.0.2")).toBe(true);
    expect(await readsLeftToRight(c.page, "Quiet")).toBe(true);
    expect(c.problems).toEqual([]);
  } finally {
    await c.context.close();
  }

  const v = await openPage(depot.origin, { viewport: null });
  try {
    await signInAs(v.page, depot.base, vendor.email, PASSWORD);
    await v.page.goto(`${depot.base}/dashboard/products/${product.id}`, { waitUntil: "networkidle" });
    await v.page.getByText("Plain words").waitFor({ timeout: 10_000 });
    expect(await readsLeftToRight(v.page, "Plain words")).toBe(true);
    expect(await readsLeftToRight(v.page, "7 downloads")).toBe(true);

    await v.page.goto(`${depot.base}/dashboard/purchases`, { waitUntil: "networkidle" });
    await v.page.getByText(customer.email).waitFor({ timeout: 10_000 });
    expect(await readsLeftToRight(v.page, customer.email)).toBe(true);

    await v.page.goto(`${depot.base}/dashboard/products/${product.id}/licenses`, {
      waitUntil: "networkidle",
    });
    await v.page.getByText(customer.email).waitFor({ timeout: 10_000 });
    expect(await readsLeftToRight(v.page, customer.email)).toBe(true);
    // A confirm() is plain text: the e-mail in it is wrapped in FIRST STRONG ISOLATE … POP DIRECTIONAL ISOLATE.
    const asked: string[] = [];
    v.page.once("dialog", (dialog) => {
      asked.push(dialog.message());
      void dialog.dismiss();
    });
    // The click ends only once the dialog is answered.
    await v.page.getByRole("button", { name: "Revoke" }).click();
    expect(asked).toEqual([`Revoke the license of \u2068${customer.email}\u2069? It stops working at once.`]);
    expect(v.problems).toEqual([]);
  } finally {
    await v.context.close();
  }
}, 60_000);
