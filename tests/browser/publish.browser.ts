// The Products pages in a real browser at a phone's width, against the real API: a vendor signs in,
// opens Products → their product, previews a Markdown changelog (rendered and sanitised by depot),
// publishes a 5 MiB file through the resumable uploads with a moving progress bar, downloads it
// byte-identical (by token and by the page's Download link), is told beside Version that a name is
// taken, drops a file on the drop zone, survives a PATCH that fails on the way and one answered 503
// (it resumes from the server's offset), deletes a version, and meets the 404 of a product that is
// not theirs. A second server with a 1 MiB limit shows the 413 beside File, and Cancel. A product with
// benefits gets a Benefit select: a version published to a benefit is that benefit's latest in the API
// (a removed benefit's 404 shows beside the select), Whole product still publishes to everyone, and a
// refused options list leaves the form as it was.
import { expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { eq } from "drizzle-orm";
import { isolated } from "../../src/dashboard/app/bidi.ts";
import { purchaseBenefits } from "../../src/db/schema/index.ts";
import { bearer, readJson, startTestApp } from "../helpers/app.ts";
import { fitsWidth, followNav, listeningDepot, offOrigin, openPage, signInAs } from "../helpers/browser.ts";
import { createBenefit, createOption, createProduct, createUser, tokenFor } from "../helpers/factories.ts";
import { userWithPassword } from "../helpers/sessions.ts";

const PASSWORD = "correct horse battery";
const MiB = 1024 * 1024;

// Publishing enqueues the version.published job in its transaction: pg-boss must take it.
const depot = listeningDepot({ jobs: "send" });

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** The dropped file's bytes, built the same way in the page and here: 3 MiB of `i % 251`. */
const DROPPED_SIZE = 3 * MiB;
const dropped = () => Uint8Array.from({ length: DROPPED_SIZE }, (_, i) => i % 251);

test("a vendor previews, publishes with progress, resumes a broken upload and deletes a version", async () => {
  const vendor = await userWithPassword(depot.ctx, PASSWORD, { role: "vendor" });
  const token = await tokenFor(depot.ctx, vendor);
  const product = await createProduct(depot.ctx, vendor, { name: "Auction House", hidden: true });
  const other = await createUser(depot.ctx, { role: "vendor" });
  const othersProduct = await createProduct(depot.ctx, other, { name: "Furnace", hidden: true });
  const file = crypto.getRandomValues(new Uint8Array(5 * MiB));

  const w = await openPage(depot.origin);
  const { page } = w;
  try {
    await signInAs(page, depot.base, vendor.email, PASSWORD);

    // Products: only the vendor's own, with its flag, each a link.
    const nav = page.getByRole("navigation", { name: "Dashboard", includeHidden: true });
    await followNav(nav, "Products");
    const link = page.getByRole("link", { name: "Auction House", exact: true });
    await link.waitFor({ timeout: 10_000 });
    expect(new URL(page.url()).pathname).toBe("/dashboard/products");
    // A table: the name cell holds the link and its flags; the row's actions name the product too.
    const names = page.locator("main tbody td:first-child");
    expect(await names.allTextContents()).toEqual(["Auction House Hidden"]);
    expect(await page.getByRole("link", { name: "New product" }).count()).toBe(0);
    expect(await fitsWidth(page)).toBe(true);

    // The product: its flags, Licenses (no Settings for a vendor), no versions yet.
    await link.click();
    await page.getByRole("heading", { name: "Auction House", level: 1 }).waitFor({ timeout: 10_000 });
    expect(new URL(page.url()).pathname).toBe(`/dashboard/products/${product.id}`);
    await page.getByText("No versions yet.").waitFor({ timeout: 10_000 });
    const productNav = page.getByRole("navigation", { name: "Product" });
    expect(await productNav.getByRole("link", { includeHidden: true }).allTextContents()).toEqual([
      "Licenses",
    ]);
    expect(await productNav.getByRole("link", { name: "Licenses" }).getAttribute("href")).toBe(
      `/dashboard/products/${product.id}/licenses`,
    );
    expect(await page.locator("main .label").allTextContents()).toEqual(["Hidden"]);

    // The changelog's preview is depot's rendering: Markdown's heading, no script.
    const changelog = page.getByLabel("Changelog", { exact: true });
    await changelog.fill("## Web editor\n\n<script>window.pwned = 1</script>\n\n- bulk editing");
    await page.getByRole("button", { name: "Preview" }).click();
    const preview = page.locator(".changelog");
    await preview.locator("h2").waitFor({ timeout: 10_000 });
    expect(await preview.locator("h2").textContent()).toBe("Web editor");
    expect(await preview.locator("script").count()).toBe(0);
    expect(await preview.locator("li").textContent()).toBe("bulk editing");
    expect(await page.evaluate("window.pwned")).toBeUndefined();
    await page.getByRole("button", { name: "Write" }).click();
    expect(await changelog.inputValue()).toContain("## Web editor");

    // Choose the file with the picker; its name and size are shown.
    await page.getByLabel("Version", { exact: true }).fill("1.0.0");
    await page.getByLabel("Title", { exact: true }).fill("Web editor");
    await page.getByLabel("File", { exact: true }).setInputFiles({
      name: "auction-1.0.0.jar",
      mimeType: "application/java-archive",
      buffer: Buffer.from(file),
    });
    await page.getByText("Chosen: auction-1.0.0.jar (5 MB)").waitFor({ timeout: 5_000 });

    // Every value the progress bar takes, as it takes it.
    await page.evaluate(`
      window.progressValues = [];
      new MutationObserver(() => {
        const bar = document.getElementById("publish-progress");
        const text = document.getElementById("publish-progress-text");
        if (!bar || !text) return;
        window.progressBar = bar.tagName + " labelled " + bar.labels[0]?.textContent;
        const seen = bar.value + " " + text.textContent;
        if (window.progressValues.at(-1) !== seen) window.progressValues.push(seen);
      }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    `);
    await page.getByRole("button", { name: "Publish", exact: true }).click();
    await page.getByText("Version 1.0.0 is published.").waitFor({ timeout: 20_000 });
    const progress = (await page.evaluate("window.progressValues")) as string[];
    // 2 MiB chunks of 5 MiB: 0, 40, 80, 100 — each value and its "N %" text agree.
    expect(progress).toEqual(["0 0 %", "40 40 %", "80 80 %", "100 100 %"]);
    expect(await page.evaluate("window.progressBar")).toBe("PROGRESS labelled Upload");
    // The form is cleared after the publish, the finished upload's bar with it.
    expect(await page.locator("#publish-progress").count()).toBe(0);

    // The new version heads the list; the form is empty again.
    const versionRows = page.locator(".version");
    await versionRows.first().waitFor({ timeout: 10_000 });
    const first = (await versionRows.first().textContent()) ?? "";
    expect(first).toContain("1.0.0");
    expect(first).toContain("Web editor");
    expect(first).toContain("auction-1.0.0.jar, 5 MB");
    expect(first).toContain("0 downloads");
    expect(await page.getByLabel("Version", { exact: true }).inputValue()).toBe("");
    expect(await page.getByLabel("File", { exact: true }).inputValue()).toBe("");
    expect(await fitsWidth(page)).toBe(true);

    // The API has it with the file's bytes, downloaded with a bearer token…
    const listed = await readJson(
      await fetch(`${depot.base}/api/products/${product.id}/versions`, { headers: bearer(token) }),
    );
    expect(listed.data).toHaveLength(1);
    const published = listed.data[0];
    expect(published).toMatchObject({ version_number: "1.0.0", title: "Web editor", file_size: 5 * MiB });
    expect(published.sha256).toBe(sha256(file));
    const downloaded = await fetch(
      `${depot.base}/api/products/${product.id}/versions/${published.id}/download`,
      {
        headers: bearer(token),
      },
    );
    expect(downloaded.status).toBe(200);
    expect(sha256(new Uint8Array(await downloaded.arrayBuffer()))).toBe(sha256(file));
    // …and with the page's own Download link (the session's cookie).
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Download 1.0.0" }).click(),
    ]);
    expect(download.suggestedFilename()).toBe("auction-1.0.0.jar");
    const saved = await download.path();
    expect(sha256(new Uint8Array(await Bun.file(saved).arrayBuffer()))).toBe(sha256(file));
    await depot.ctx.downloads.flush();
    await page.reload({ waitUntil: "networkidle" });
    await page.getByText("2 downloads", { exact: false }).first().waitFor({ timeout: 10_000 });
    expect((await versionRows.first().textContent()) ?? "").toContain("· 2 downloads");

    // The same name with another file: the server's 422 beside Version, the rest kept as typed.
    const version = page.getByLabel("Version", { exact: true });
    await version.fill("1.0.0");
    await page.getByLabel("Title", { exact: true }).fill("Again");
    await changelog.fill("- again");
    await page.getByLabel("File", { exact: true }).setInputFiles({
      name: "small.jar",
      mimeType: "application/java-archive",
      buffer: Buffer.from("other bytes"),
    });
    await page.getByRole("button", { name: "Publish", exact: true }).click();
    const versionError = page.locator("#publish-version-error");
    await versionError.waitFor({ timeout: 10_000 });
    expect(await versionError.textContent()).toBe("The version name has already been taken.");
    expect(await version.getAttribute("aria-invalid")).toBe("true");
    expect(await page.getByLabel("Title", { exact: true }).inputValue()).toBe("Again");
    expect(await changelog.inputValue()).toBe("- again");
    await page.getByText("Chosen: small.jar").waitFor();

    // A file dropped on the drop zone is the one chosen.
    await page.evaluate(`(() => {
      const bytes = Uint8Array.from({ length: ${DROPPED_SIZE} }, (_, i) => i % 251);
      const data = new DataTransfer();
      data.items.add(new File([bytes], "dropped-1.0.1.zip", { type: "application/zip" }));
      const zone = document.querySelector(".drop-zone");
      zone.dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }));
    })()`);
    await page.getByText("Chosen: dropped-1.0.1.zip (3 MB)").waitFor({ timeout: 5_000 });

    // The first PATCH fails on the way, the next is answered 503 (as a proxy does while depot restarts):
    // each time the client asks the server's offset (HEAD) and goes on from there.
    const tus: string[] = [];
    page.on("request", (request) => {
      if (request.url().includes("/api/uploads")) tus.push(request.method());
    });
    let patches = 0;
    await page.route(
      (url) => url.pathname.startsWith("/api/uploads/"),
      async (route) => {
        if (route.request().method() !== "PATCH") return route.continue();
        patches++;
        if (patches === 1) return route.abort("connectionreset");
        if (patches === 2)
          return route.fulfill({
            status: 503,
            contentType: "application/json",
            body: JSON.stringify({ message: "Service Unavailable." }),
          });
        return route.continue();
      },
    );
    await version.fill("1.0.1");
    await page.getByRole("button", { name: "Publish", exact: true }).click();
    await page.getByText("Version 1.0.1 is published.").waitFor({ timeout: 20_000 });
    expect(patches).toBe(4);
    expect(tus).toEqual(["POST", "PATCH", "HEAD", "PATCH", "HEAD", "PATCH", "PATCH"]);
    // The list reloads after the notice: the new version heads it.
    await page.getByRole("button", { name: "Delete 1.0.1" }).waitFor({ timeout: 10_000 });
    expect((await versionRows.first().textContent()) ?? "").toContain("1.0.1");
    const resumed = (
      await readJson(
        await fetch(`${depot.base}/api/products/${product.id}/versions`, { headers: bearer(token) }),
      )
    ).data[0];
    expect(resumed).toMatchObject({
      version_number: "1.0.1",
      file_name: "dropped-1.0.1.zip",
      file_size: DROPPED_SIZE,
    });
    expect(resumed.sha256).toBe(sha256(dropped()));

    // Delete, after a confirm: the version leaves the list and the API.
    const dialogs: string[] = [];
    page.once("dialog", (dialog) => {
      dialogs.push(dialog.message());
      void dialog.accept();
    });
    await page.getByRole("button", { name: "Delete 1.0.1" }).click();
    await page.getByRole("button", { name: "Delete 1.0.1" }).waitFor({ state: "detached", timeout: 10_000 });
    expect(dialogs).toEqual([expect.stringContaining("1.0.1")]);
    expect(await versionRows.count()).toBe(1);
    const after = await readJson(
      await fetch(`${depot.base}/api/products/${product.id}/versions`, { headers: bearer(token) }),
    );
    expect(after.data.map((v: { version_number: string }) => v.version_number)).toEqual(["1.0.0"]);
    expect(await fitsWidth(page)).toBe(true);

    // Another vendor's hidden product: the API's 404, as the page shows it.
    await page.goto(`${depot.base}/dashboard/products/${othersProduct.id}`, { waitUntil: "networkidle" });
    await page.getByText("Product not found.").waitFor({ timeout: 10_000 });
    expect(await page.getByRole("heading", { name: "Publish a version" }).count()).toBe(0);

    expect(offOrigin(w)).toEqual([]);
    expect(w.problems).toEqual([]);
  } finally {
    await w.context.close();
  }
}, 60_000);

test("a file over MAX_UPLOAD_BYTES is refused beside File; Cancel stops an upload and deletes it", async () => {
  // A server of its own, with a 1 MiB limit.
  const small = await startTestApp({ jobs: "send", env: { MAX_UPLOAD_BYTES: String(MiB) } });
  const smallBase = small.listen();
  const vendor = await userWithPassword(small.ctx, PASSWORD, { role: "vendor" });
  const product = await createProduct(small.ctx, vendor, { name: "Tiny" });
  const w = await openPage(new URL(smallBase).origin);
  const { page } = w;
  try {
    await signInAs(page, smallBase, vendor.email, PASSWORD);
    await page.goto(`${smallBase}/dashboard/products/${product.id}`, { waitUntil: "networkidle" });
    await page.getByText("No versions yet.").waitFor({ timeout: 10_000 });

    // Over the limit: the tus POST's 413, beside File; what was typed stays.
    await page.getByLabel("Version", { exact: true }).fill("1.0.0");
    await page.getByLabel("Title", { exact: true }).fill("Too big");
    await page.getByLabel("Changelog", { exact: true }).fill("- big");
    const file = page.getByLabel("File", { exact: true });
    await file.setInputFiles({
      name: "big.bin",
      mimeType: "application/octet-stream",
      buffer: Buffer.alloc(MiB + 1),
    });
    await page.getByRole("button", { name: "Publish", exact: true }).click();
    const fileError = page.locator("#publish-file-error");
    await fileError.waitFor({ timeout: 10_000 });
    expect(await fileError.textContent()).toBe(`The file may not be greater than ${MiB} bytes.`);
    expect(await file.getAttribute("aria-invalid")).toBe("true");
    expect(await file.getAttribute("aria-describedby")).toContain("publish-file-error");
    expect(await page.getByLabel("Title", { exact: true }).inputValue()).toBe("Too big");
    expect(await page.getByLabel("Changelog", { exact: true }).inputValue()).toBe("- big");

    // A file within it, whose first PATCH is held: Cancel while it is on its way.
    const requests: string[] = [];
    page.on("request", (request) => {
      if (request.url().includes("/api/uploads")) requests.push(request.method());
    });
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let uploadPath = "";
    await page.route(
      (url) => url.pathname.startsWith("/api/uploads/"),
      async (route) => {
        if (route.request().method() === "PATCH") {
          uploadPath = new URL(route.request().url()).pathname;
          await held;
        }
        await route.continue().catch(() => undefined);
      },
    );
    await file.setInputFiles({
      name: "fits.bin",
      mimeType: "application/octet-stream",
      buffer: Buffer.alloc(MiB),
    });
    await page.getByRole("button", { name: "Publish", exact: true }).click();
    const cancel = page.getByRole("button", { name: "Cancel upload" });
    await cancel.waitFor({ timeout: 10_000 });
    await page.getByText("0 %", { exact: true }).waitFor();
    await cancel.click();
    await page.getByText("The upload was cancelled; nothing was published.").waitFor({ timeout: 10_000 });
    release();
    expect(requests).toEqual(["POST", "PATCH", "DELETE"]);
    // The upload is gone from the server, and no version was made.
    const token = await tokenFor(small.ctx, vendor);
    const head = await fetch(`${smallBase}${uploadPath}`, {
      method: "HEAD",
      headers: { ...bearer(token), "tus-resumable": "1.0.0" },
    });
    expect(head.status).toBe(404);
    const versions = await readJson(
      await fetch(`${smallBase}/api/products/${product.id}/versions`, { headers: bearer(token) }),
    );
    expect(versions.data).toEqual([]);
    expect(await page.getByLabel("Version", { exact: true }).inputValue()).toBe("1.0.0");
    await page.getByRole("button", { name: "Publish", exact: true }).waitFor();
    expect(await fitsWidth(page)).toBe(true);
    expect(w.problems).toEqual([]);
  } finally {
    await w.context.close();
    await small.close();
  }
}, 60_000);

test("a vendor without products is told who makes them; an admin sees every product, New product and Settings", async () => {
  const empty = await userWithPassword(depot.ctx, PASSWORD, { role: "vendor" });
  const admin = await userWithPassword(depot.ctx, PASSWORD, { role: "admin" });
  const owner = await createUser(depot.ctx, { role: "vendor" });
  const disabled = await createProduct(depot.ctx, owner, { name: "Zeppelin Races", disabled: true });
  const w = await openPage(depot.origin);
  try {
    await signInAs(w.page, depot.base, empty.email, PASSWORD);
    await followNav(w.page.getByRole("navigation", { name: "Dashboard", includeHidden: true }), "Products");
    await w.page.getByText("No products yet — an admin creates them for you.").waitFor({ timeout: 10_000 });
    expect(await w.page.getByRole("link", { name: "New product" }).count()).toBe(0);
    expect(w.problems).toEqual([]);
  } finally {
    await w.context.close();
  }

  const a = await openPage(depot.origin);
  const { page } = a;
  try {
    await signInAs(page, depot.base, admin.email, PASSWORD);
    await followNav(page.getByRole("navigation", { name: "Dashboard", includeHidden: true }), "Products");
    const row = page.locator("main tbody tr").filter({ hasText: "Zeppelin Races" });
    await row.waitFor({ timeout: 10_000 });
    expect(await row.locator(".label").allTextContents()).toEqual(["Disabled"]);
    // Everyone's products, the other vendors' hidden ones too.
    expect(await page.getByRole("link", { name: "Furnace", exact: true }).count()).toBe(1);
    expect(await page.getByRole("link", { name: "New product" }).getAttribute("href")).toBe(
      "/dashboard/products/new",
    );

    // The search narrows the list (the API's ?search=).
    await page.getByLabel("Search by name", { exact: true }).fill("zeppelin");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await page
      .getByRole("link", { name: "Furnace", exact: true })
      .waitFor({ state: "detached", timeout: 10_000 });
    // The list reloads (its loading line first), then shows the one match.
    await page.getByRole("link", { name: "Zeppelin Races", exact: true }).waitFor({ timeout: 10_000 });
    expect(await page.locator("main tbody td:first-child").allTextContents()).toEqual([
      "Zeppelin Races Disabled",
    ]);
    await page.getByLabel("Search by name", { exact: true }).fill("nothing like it");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await page.getByText("No products match “nothing like it”.").waitFor({ timeout: 10_000 });

    await page.goto(`${depot.base}/dashboard/products/${disabled.id}`, { waitUntil: "networkidle" });
    await page.getByRole("heading", { name: "Zeppelin Races", level: 1 }).waitFor({ timeout: 10_000 });
    const productNav = page.getByRole("navigation", { name: "Product" });
    expect(await productNav.getByRole("link", { includeHidden: true }).allTextContents()).toEqual([
      "Licenses",
      "Settings",
    ]);
    expect(await productNav.getByRole("link", { name: "Settings" }).getAttribute("href")).toBe(
      `/dashboard/products/${disabled.id}/settings`,
    );
    await page.getByRole("heading", { name: "Publish a version" }).waitFor();
    expect(await fitsWidth(page)).toBe(true);
    expect(offOrigin(a)).toEqual([]);
    expect(a.problems).toEqual([]);
  } finally {
    await a.context.close();
  }
}, 60_000);

test("a vendor publishes to a benefit from the Benefit select, and to the whole product; without benefits there is no select", async () => {
  const vendor = await userWithPassword(depot.ctx, PASSWORD, { role: "vendor" });
  const token = await tokenFor(depot.ctx, vendor);
  const product = await createProduct(depot.ctx, vendor, { name: "Tiered Tools" });
  const option = await createOption(depot.ctx, product);
  const benefit = await createBenefit(depot.ctx, option);
  // Removed while the page is open (as another admin might): publishing to it is the API's 404.
  const gone = await createBenefit(depot.ctx, option);
  // An option without benefits is no reason for a select.
  const plain = await createProduct(depot.ctx, vendor, { name: "Plain Tools" });
  await createOption(depot.ctx, plain);
  const file = crypto.getRandomValues(new Uint8Array(64 * 1024));
  const versionsOf = async (id: number) =>
    (await readJson(await fetch(`${depot.base}/api/products/${id}/versions`, { headers: bearer(token) })))
      .data;

  const w = await openPage(depot.origin);
  const { page } = w;
  try {
    await page.goto(`${depot.base}/sign-in`, { waitUntil: "networkidle" });
    await page.getByLabel("Email", { exact: true }).fill(vendor.email);
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page
      .getByRole("navigation", { name: "Dashboard", includeHidden: true })
      .waitFor({ state: "attached", timeout: 10_000 });

    // A product without benefits: the form as it was, no select.
    await page.goto(`${depot.base}/dashboard/products/${plain.id}`, { waitUntil: "networkidle" });
    await page.getByText("No versions yet.").waitFor({ timeout: 10_000 });
    await page.getByRole("heading", { name: "Publish a version" }).waitFor();
    expect(await page.getByLabel("Benefit", { exact: true }).count()).toBe(0);
    // Its only selects are the file's platform and architecture.
    expect(await page.locator("select").count()).toBe(2);
    expect(await page.getByLabel("Platform", { exact: true }).count()).toBe(1);
    expect(await page.getByLabel("Architecture", { exact: true }).count()).toBe(1);

    // A product with benefits: Whole product first and chosen, then each benefit with its option (each
    // name isolated, as plain text must be: tests/browser/bidi.browser.ts).
    await page.goto(`${depot.base}/dashboard/products/${product.id}`, { waitUntil: "networkidle" });
    await page.getByText("No versions yet.").waitFor({ timeout: 10_000 });
    const select = page.getByLabel("Benefit", { exact: true });
    await select.waitFor({ timeout: 10_000 });
    expect(await select.locator("option").allTextContents()).toEqual([
      "Whole product",
      `${isolated(benefit.name)} (${isolated(option.name)})`,
      `${isolated(gone.name)} (${isolated(option.name)})`,
    ]);
    expect(await select.inputValue()).toBe("");
    expect(await select.getAttribute("aria-describedby")).toBe("publish-benefit-hint");
    expect(await fitsWidth(page)).toBe(true);

    const uploads: string[] = [];
    page.on("request", (request) => {
      if (request.url().includes("/api/uploads")) uploads.push(request.method());
    });
    await depot.ctx.db.delete(purchaseBenefits).where(eq(purchaseBenefits.id, gone.id));
    await select.selectOption(String(gone.id));
    await page.getByLabel("File", { exact: true }).setInputFiles({
      name: "tools-1.0.0.zip",
      mimeType: "application/zip",
      buffer: Buffer.from(file),
    });
    await page.getByLabel("Version", { exact: true }).fill("1.0.0");
    await page.getByLabel("Title", { exact: true }).fill("Sources");
    await page.getByLabel("Changelog", { exact: true }).fill("- sources");
    await page.getByRole("button", { name: "Publish", exact: true }).click();
    // The 404 beside the select, the select marked invalid; nothing above the form; all kept as typed.
    const benefitError = page.locator("#publish-benefit-error");
    await benefitError.waitFor({ timeout: 10_000 });
    expect(await benefitError.textContent()).toBe("Benefit not found.");
    expect(await select.getAttribute("aria-invalid")).toBe("true");
    expect(await select.getAttribute("aria-describedby")).toBe("publish-benefit-error publish-benefit-hint");
    expect(await page.locator("form .error").count()).toBe(0);
    expect(await page.getByLabel("Title", { exact: true }).inputValue()).toBe("Sources");
    expect(await versionsOf(product.id)).toEqual([]);

    // The benefit that exists: the finished upload is published, not sent again.
    await select.selectOption(String(benefit.id));
    await page.getByRole("button", { name: "Publish", exact: true }).click();
    await page.getByText(`Version 1.0.0 of ${benefit.name} is published.`).waitFor({ timeout: 10_000 });
    expect(uploads.filter((method) => method === "POST")).toHaveLength(1);
    expect(await select.inputValue()).toBe("");
    expect(await benefitError.count()).toBe(0);
    await page.getByRole("button", { name: "Delete 1.0.0" }).waitFor({ timeout: 10_000 });
    const versionRows = page.locator(".version");
    expect(await versionRows.allTextContents()).toEqual([
      expect.stringContaining(` · ${benefit.name} · tools-1.0.0.zip, 64 KB`),
    ]);

    // The API has it as the benefit's latest, with the file's bytes; the whole product has none yet.
    const latest = await fetch(
      `${depot.base}/api/products/${product.id}/versions/latest?benefit=${benefit.id}`,
      {
        headers: bearer(token),
      },
    );
    expect(latest.status).toBe(200);
    expect(latest.headers.get("content-type")).toContain("application/json");
    const forBenefit = (await readJson(latest)).data;
    expect(forBenefit).toMatchObject({
      version_number: "1.0.0",
      title: "Sources",
      benefit_name: benefit.name,
      purchase_benefit_id: benefit.id,
      option_id: option.id,
      file_name: "tools-1.0.0.zip",
      file_size: file.length,
    });
    expect(forBenefit.sha256).toBe(sha256(file));
    const wholeNone = await fetch(`${depot.base}/api/products/${product.id}/versions/latest`, {
      headers: bearer(token),
    });
    expect(wholeNone.status).toBe(404);

    // Whole product (chosen again after the publish): the same version name, for everyone.
    await page.getByLabel("File", { exact: true }).setInputFiles({
      name: "tools-1.0.0.jar",
      mimeType: "application/java-archive",
      buffer: Buffer.from("whole product bytes"),
    });
    await page.getByLabel("Version", { exact: true }).fill("1.0.0");
    await page.getByLabel("Title", { exact: true }).fill("Everyone");
    await page.getByLabel("Changelog", { exact: true }).fill("- everyone");
    await page.getByRole("button", { name: "Publish", exact: true }).click();
    await page.getByText("Version 1.0.0 is published.").waitFor({ timeout: 10_000 });
    await page.getByText("tools-1.0.0.jar", { exact: false }).waitFor({ timeout: 10_000 });
    const rows = await versionRows.allTextContents();
    expect(rows).toHaveLength(2);
    expect(rows[0]).toContain("Everyone");
    expect(rows[0]).not.toContain(benefit.name);
    const whole = (
      await readJson(
        await fetch(`${depot.base}/api/products/${product.id}/versions/latest`, { headers: bearer(token) }),
      )
    ).data;
    expect(whole).toMatchObject({ title: "Everyone", benefit_name: null, purchase_benefit_id: null });
    expect(await fitsWidth(page)).toBe(true);
    expect(offOrigin(w)).toEqual([]);
    expect(w.problems).toEqual([]);

    // Should the options list be refused, the form publishes to the whole product, with no error shown.
    await page.route(
      (url) => url.pathname === `/api/products/${product.id}/options`,
      (route) =>
        route.fulfill({
          status: 403,
          contentType: "application/json",
          body: JSON.stringify({ message: "This action is unauthorized." }),
        }),
    );
    await page.reload({ waitUntil: "networkidle" });
    await page.getByRole("heading", { name: "Publish a version" }).waitFor({ timeout: 10_000 });
    await page.getByRole("button", { name: "Delete 1.0.0" }).first().waitFor({ timeout: 10_000 });
    expect(await page.getByLabel("Benefit", { exact: true }).count()).toBe(0);
    expect(await page.locator("main .error, main [role=alert]").count()).toBe(0);
    await page.getByLabel("File", { exact: true }).setInputFiles({
      name: "tools-1.0.1.jar",
      mimeType: "application/java-archive",
      buffer: Buffer.from("a fix"),
    });
    await page.getByLabel("Version", { exact: true }).fill("1.0.1");
    await page.getByLabel("Title", { exact: true }).fill("Fix");
    await page.getByLabel("Changelog", { exact: true }).fill("- fix");
    await page.getByRole("button", { name: "Publish", exact: true }).click();
    await page.getByText("Version 1.0.1 is published.").waitFor({ timeout: 10_000 });
    expect(
      (await versionsOf(product.id)).map((v: { version_number: string; benefit_name: string | null }) => [
        v.version_number,
        v.benefit_name,
      ]),
    ).toEqual([
      ["1.0.1", null],
      ["1.0.0", null],
      ["1.0.0", benefit.name],
    ]);
  } finally {
    await w.context.close();
  }
}, 60_000);
