// The dashboard over a real socket: the shell at its paths with a self-only CSP, its hashed assets
// with their types and long cache lifetimes, the first load within its size budget and free of the
// server's code, and the JSON API's own 404s untouched by the shell's routes.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { bundledSources } from "../src/dashboard/bundle.ts";
import { startTestApp, type TestApp } from "./helpers/app.ts";

/** The first load's JavaScript, gzip-compressed, must stay under this (docs/dashboard.md, Dashboard). */
const FIRST_LOAD_JS_BUDGET = 120 * 1024;

let t: TestApp;
let base: string;

beforeAll(async () => {
  t = await startTestApp();
  base = t.listen();
});
afterAll(() => t.close());

/** The script and stylesheet URLs the page makes the browser load. */
async function assetsOf(html: string): Promise<{ scripts: string[]; stylesheets: string[] }> {
  const scripts: string[] = [];
  const stylesheets: string[] = [];
  await new HTMLRewriter()
    .on("script[src]", { element: (e) => void scripts.push(e.getAttribute("src") ?? "") })
    .on("link[rel=stylesheet]", { element: (e) => void stylesheets.push(e.getAttribute("href") ?? "") })
    .transform(new Response(html))
    .text();
  return { scripts, stylesheets };
}

describe("the dashboard shell", () => {
  test("GET / answers the HTML page with a CSP that allows only depot itself", async () => {
    const response = await fetch(`${base}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const csp = response.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'self'");
    // Every source in the policy is 'self' or 'none': no host, no scheme, nothing inline.
    const sources = csp.split(";").flatMap((directive) => directive.trim().split(/\s+/).slice(1));
    expect(sources.filter((source) => source !== "'self'" && source !== "'none'")).toEqual([]);
    expect(response.headers.get("cache-control")).toBe("no-cache");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    const html = await response.text();
    expect(html).toContain('<div id="app">');
    // Nothing inline for the CSP to refuse, and no other host named.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>|<style|\sstyle=|\son[a-z]+=/i);
    expect(html).not.toMatch(/(?:src|href)="(?:https?:)?\/\//i);
  });

  test("the assets it names answer with their content type and a year-long immutable cache", async () => {
    const { scripts, stylesheets } = await assetsOf(await (await fetch(`${base}/`)).text());
    expect(scripts).toHaveLength(1);
    expect(stylesheets).toHaveLength(1);
    const expected = [
      ...scripts.map((url) => [url, "text/javascript; charset=utf-8"]),
      ...stylesheets.map((url) => [url, "text/css; charset=utf-8"]),
    ];
    for (const [url, contentType] of expected) {
      // A content hash in the name: a new build is a new URL, so an old one may be cached forever.
      expect(url).toMatch(/^\/dashboard\/assets\/[\w.-]+-[a-z0-9]{6,}\.(js|css)$/);
      const response = await fetch(`${base}${url}`);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe(contentType ?? "");
      expect(response.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect((await response.text()).length).toBeGreaterThan(100);
    }
  });

  test("an asset is sent gzipped to a client that accepts it, and plain to one that does not", async () => {
    const { scripts } = await assetsOf(await (await fetch(`${base}/`)).text());
    const url = `${base}${scripts[0]}`;
    const gzipped = await fetch(url, { headers: { "accept-encoding": "gzip" }, decompress: false });
    expect(gzipped.headers.get("content-encoding")).toBe("gzip");
    expect(gzipped.headers.get("vary")).toBe("accept-encoding");
    const plain = await fetch(url, { headers: { "accept-encoding": "identity" } });
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(new TextDecoder().decode(Bun.gunzipSync(new Uint8Array(await gzipped.arrayBuffer())))).toBe(
      await plain.text(),
    );
  });

  test("the page links its SVG icon, cached for a year; /favicon.ico answers the same icon as an ICO", async () => {
    const icons: { href: string; type: string }[] = [];
    await new HTMLRewriter()
      .on("link[rel=icon]", {
        element: (e) =>
          void icons.push({ href: e.getAttribute("href") ?? "", type: e.getAttribute("type") ?? "" }),
      })
      .transform(await fetch(`${base}/`))
      .text();
    expect(icons).toEqual([
      {
        href: expect.stringMatching(/^\/dashboard\/assets\/favicon-[a-z0-9]{6,}\.svg$/),
        type: "image/svg+xml",
      },
    ]);
    const svg = await fetch(`${base}${icons[0]?.href}`);
    expect(svg.status).toBe(200);
    expect(svg.headers.get("content-type")).toBe("image/svg+xml");
    expect(svg.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(svg.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await svg.text()).toStartWith("<svg ");

    // Asked for by whatever does not read the page (bookmarks, feed readers): no 404 in the log.
    const ico = await fetch(`${base}/favicon.ico`);
    expect(ico.status).toBe(200);
    expect(ico.headers.get("content-type")).toBe("image/x-icon");
    // Its URL never changes, so not immutable; a week spares a request on every page load.
    expect(ico.headers.get("cache-control")).toBe("public, max-age=604800");
    expect(ico.headers.get("x-content-type-options")).toBe("nosniff");
    const bytes = new Uint8Array(await ico.arrayBuffer());
    expect(bytes.length).toBeGreaterThan(100);
    // An ICO header (reserved 0, type 1) with at least one image.
    expect([...bytes.subarray(0, 4)]).toEqual([0, 0, 1, 0]);
    expect(bytes[4]).toBeGreaterThan(0);
    expect(Number(ico.headers.get("content-length"))).toBe(bytes.length);
  });

  test(`the first load's JavaScript is under ${FIRST_LOAD_JS_BUDGET / 1024} KB gzipped`, async () => {
    const { scripts } = await assetsOf(await (await fetch(`${base}/`)).text());
    let compressed = 0;
    for (const url of scripts) {
      const text = await (await fetch(`${base}${url}`)).text();
      compressed += Bun.gzipSync(text).length;
    }
    expect(compressed).toBeGreaterThan(0);
    expect(compressed).toBeLessThan(FIRST_LOAD_JS_BUDGET);
  });

  // The lists its forms offer, and the file-name table its publish form infers a platform with (the
  // server's own, so the two never disagree); wire.ts names types only.
  test("the script bundles nothing of the server but its forms' lists and the file-name table", async () => {
    const root = fileURLToPath(new URL("../", import.meta.url));
    const server = (await bundledSources())
      .map((path) => relative(root, path))
      .filter((path) => !path.includes("node_modules/") && !path.startsWith("src/dashboard/app/"));
    expect(server.sort()).toEqual([
      "src/features/artifacts/file-names.ts",
      "src/features/auth/permissions.ts",
      "src/features/webhooks/events.ts",
    ]);
  });

  test("client-side routes answer the same page; an unknown asset is a JSON 404", async () => {
    const shell = await (await fetch(`${base}/`)).text();
    for (const path of [
      "/sign-in",
      "/set-password",
      "/dashboard",
      "/dashboard/products/12",
      "/dashboard/no/such/page",
    ]) {
      const response = await fetch(`${base}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(await response.text()).toBe(shell);
    }
    const missing = await fetch(`${base}/dashboard/assets/main-00000000.js`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ message: "Asset not found." });
  });

  test("the API and the other paths answer as before: an unknown /api route is still the JSON 404", async () => {
    for (const path of ["/api/nope", "/api/v1/nope", "/nope", "/docs/nope", "/storage/nope.png"]) {
      const response = await fetch(`${base}${path}`);
      expect(response.status).toBe(404);
      expect(response.headers.get("content-type")).toContain("application/json");
      expect(response.headers.get("content-security-policy")).toBeNull();
    }
    expect((await fetch(`${base}/api/health`)).status).toBe(200);
    expect((await fetch(`${base}/docs/json`)).headers.get("content-type")).toContain("application/json");
    // A POST to the page's path is not a page: the 405 of a path served for GET only.
    const post = await fetch(`${base}/sign-in`, { method: "POST" });
    expect(post.status).toBe(405);
  });
});
