// The front door, as a newcomer goes through it: depot started alone in an empty directory prints its
// setup link; in the browser that link creates the first admin, who makes a product and a publishing
// token on the dashboard; `depot publish` from another process then publishes to it. depot runs as
// its own process: the compiled binary when DEPOT_BINARY names one (CI passes dist/depot-linux-x64),
// otherwise the sources. The browser harness is tests/helpers/browser.ts.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { isolated } from "../../src/dashboard/app/bidi.ts";
import { bearer, readJson } from "../helpers/app.ts";
import { followNav, openPage } from "../helpers/browser.ts";
import { unusedPort } from "../helpers/ports.ts";

const MAIN = join(import.meta.dir, "../../src/main.ts");
const command = process.env.DEPOT_BINARY ? [resolve(process.env.DEPOT_BINARY)] : [process.execPath, MAIN];
const ADMIN = { name: "Ada Admin", email: "ada@example.com", password: "correct horse battery" };

const dir = mkdtempSync(join(tmpdir(), "depot-first-run-"));
const port = unusedPort();
const base = `http://127.0.0.1:${port}`;
// Nothing of ours leaks in: no DATABASE_URL, no DATA_DIR; the embedded database goes to ./data.
const env = {
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: dir,
  PORT: String(port),
  HOST: "127.0.0.1",
  APP_URL: base,
};
let server: ReturnType<typeof Bun.spawn<"ignore", "pipe", "pipe">>;
let setupUrl: string;

/** Reads stderr until the setup link shows (the first start runs initdb: up to a minute). */
async function setupLinkOf(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    const found = /\n {2}(http:\/\/\S+\/setup\?code=[A-Za-z0-9_-]{43})\n/.exec(text);
    if (found?.[1]) {
      reader.releaseLock();
      return found[1];
    }
  }
  throw new Error(`depot printed no setup link:\n${text}`);
}

beforeAll(async () => {
  server = Bun.spawn([...command, "serve"], {
    cwd: dir,
    env,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  setupUrl = await setupLinkOf(server.stderr);
}, 90_000);
afterAll(() => {
  if (server.exitCode === null) server.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

test("from an empty directory: the setup link, the admin, a product and a token, then depot publish", async () => {
  expect(setupUrl).toStartWith(`${base}/setup?code=`);
  const { context, page, pageErrors } = await openPage(new URL(base).origin, { viewport: null });
  try {
    // 1. The printed link: the code is filled in; the admin is created and signed in.
    await page.goto(setupUrl, { waitUntil: "networkidle" });
    await page.getByRole("heading", { name: "Create the first admin" }).waitFor({ timeout: 10_000 });
    await page.getByLabel("Name", { exact: true }).fill(ADMIN.name);
    await page.getByLabel("Email", { exact: true }).fill(ADMIN.email);
    await page.getByLabel("Password", { exact: true }).fill(ADMIN.password);
    await page.getByRole("button", { name: "Create admin and sign in" }).click();
    const nav = page.getByRole("navigation", { name: "Dashboard", includeHidden: true });
    await nav.waitFor({ state: "attached", timeout: 10_000 });

    // 2. A product the admin owns, and a token that can only publish.
    await followNav(nav, "Products");
    await page.getByRole("link", { name: "New product" }).click();
    const newProduct = page.getByRole("form", { name: "New product" });
    await newProduct.getByLabel("Name", { exact: true }).fill("First Product");
    await newProduct
      .getByLabel("Owner", { exact: true })
      .selectOption({ label: `${isolated(ADMIN.name)} (${isolated(ADMIN.email)}, ${isolated("admin")})` });
    await newProduct.getByRole("button", { name: "Create product" }).click();
    await page.waitForURL((url) => /^\/dashboard\/products\/\d+$/.test(url.pathname), { timeout: 10_000 });
    const productId = Number(new URL(page.url()).pathname.split("/").pop());

    await followNav(nav, "Tokens");
    await page.getByRole("button", { name: "New token" }).click();
    await page.getByLabel("Name", { exact: true }).fill("CI publish");
    await page.getByRole("checkbox", { name: /versions\.publish/ }).check();
    await page.getByRole("button", { name: "Create token" }).click();
    const tokenField = page.getByLabel("Your new token");
    await tokenField.waitFor({ timeout: 10_000 });
    const token = await tokenField.inputValue();
    expect(token).toMatch(/^\d+\|\S+$/);
    expect(pageErrors).toEqual([]);

    // 3. depot publish, another process, with that token.
    writeFileSync(join(dir, "release.zip"), "the first release");
    const publish = Bun.spawn(
      [
        ...command,
        "publish",
        "release.zip",
        "--product",
        String(productId),
        "--version",
        "1.0.0",
        "--title",
        "First release",
        "--changelog",
        "- hello",
        "--json",
      ],
      {
        cwd: dir,
        env: { PATH: env.PATH, HOME: dir, DEPOT_URL: base, DEPOT_TOKEN: token },
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    const [stdout, stderr, code] = await Promise.all([
      new Response(publish.stdout).text(),
      new Response(publish.stderr).text(),
      publish.exited,
    ]);
    expect({ code, stderr }).toMatchObject({ code: 0 }); // stderr shown when it fails (it has the progress bar)
    expect(JSON.parse(stdout).version).toMatchObject({ version_number: "1.0.0", file_size: 17 });
    const versions = await fetch(`${base}/api/products/${productId}/versions`, { headers: bearer(token) });
    expect(versions.status).toBe(200);
    const listed = (await readJson(versions)) as { data: { version_number: string; title: string }[] };
    expect(listed.data.map((v) => [v.version_number, v.title])).toEqual([["1.0.0", "First release"]]);
  } finally {
    await context.close();
  }
  server.kill("SIGTERM");
  expect(await server.exited).toBe(0);
}, 90_000);
