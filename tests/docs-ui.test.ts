// /docs over a real socket: the page may load nothing from another host, because depot often runs
// where there is no internet (the UI then stayed blank while it fetched Scalar from a CDN).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readJson, startTestApp, type TestApp } from "./helpers/app.ts";

let t: TestApp;
let base: string;

beforeAll(async () => {
  t = await startTestApp();
  base = t.listen();
});
afterAll(() => t.close());

type Kind = "script" | "stylesheet" | "other";

interface DocsPage {
  /** Every URL the HTML makes the browser load, as written, with what it is loaded as. */
  loads: { url: string; kind: Kind }[];
  /** Scalar's configuration (the JSON in data-configuration). */
  // biome-ignore lint/suspicious/noExplicitAny: assertions below read it field by field
  config: any;
}

/** Reads /docs with a real HTML parser: src/href attributes, CSS url()/@import and Scalar's configuration. */
async function readDocsPage(html: string): Promise<DocsPage> {
  const loads: DocsPage["loads"] = [];
  let configuration = "";
  const cssUrls = (css: string) => {
    for (const match of css.matchAll(/url\(\s*['"]?([^'")]+)|@import\s+['"]([^'"]+)/g))
      loads.push({ url: (match[1] ?? match[2] ?? "").trim(), kind: "other" });
  };
  await new HTMLRewriter()
    .on("*", {
      element(element) {
        for (const [name, value] of element.attributes) {
          if (name === "src")
            loads.push({ url: value, kind: element.tagName === "script" ? "script" : "other" });
          if (name === "href") {
            const stylesheet = element.tagName === "link" && element.getAttribute("rel") === "stylesheet";
            loads.push({ url: value, kind: stylesheet ? "stylesheet" : "other" });
          }
          if (name === "srcset" || name === "poster" || name === "data")
            loads.push({ url: value.trim().split(/\s+/)[0] ?? "", kind: "other" });
          if (name === "style") cssUrls(value);
          if (name === "data-configuration") configuration = value;
        }
      },
    })
    .on("style", {
      text(chunk) {
        cssUrls(chunk.text);
      },
    })
    .transform(new Response(html))
    .text();
  return { loads, config: JSON.parse(configuration) };
}

describe("GET /docs loads everything from depot itself", () => {
  test.each(["/docs", "/docs/"])(
    "at %s, the page's scripts, stylesheets and other URLs are same-origin and answer 200 with their type",
    async (path) => {
      const page = `${base}${path}`;
      const response = await fetch(page);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toContain("text/html");
      const html = await response.text();
      const origin = new URL(base).origin;

      // No absolute URL anywhere in the page (a <meta>, an inline style, the configuration) names another host.
      for (const [absolute] of html.matchAll(/(?:https?:)?\/\/[^\s"'<>()`]+/g))
        expect(new URL(absolute, base).origin).toBe(origin);

      const { loads, config } = await readDocsPage(html);
      // Scalar's own bundle, the spec it reads and any proxy are URLs in its configuration, not attributes.
      loads.push({ url: config.url, kind: "other" });
      expect(loads.some((load) => load.kind === "script")).toBe(true);
      for (const { url, kind } of loads) {
        // Resolved as the browser does, against the page's own URL (a relative one differs with a slash).
        const resolved = new URL(url, page);
        expect(resolved.origin).toBe(origin);
        const asset = await fetch(resolved);
        expect(`${resolved.pathname} ${asset.status}`).toBe(`${resolved.pathname} 200`);
        const type = asset.headers.get("content-type") ?? "";
        if (kind === "script") expect(type).toMatch(/^(text|application)\/javascript\b/);
        if (kind === "stylesheet") expect(type).toMatch(/^text\/css\b/);
        await asset.arrayBuffer();
      }
    },
  );

  test("the UI bundle is cached for a year under a versioned URL", async () => {
    const html = await (await fetch(`${base}/docs`)).text();
    const script = (await readDocsPage(html)).loads.find((load) => load.kind === "script");
    expect(script?.url).toMatch(/^\/docs\/assets\/scalar-\d+\.\d+\.\d+\.js$/);
    const bundle = await fetch(new URL(script?.url ?? "", base));
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(bundle.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect((await bundle.arrayBuffer()).byteLength).toBeGreaterThan(1_000_000);
  });

  test("Scalar is told to load no web fonts, send no telemetry and relay no request through a proxy", async () => {
    const { config } = await readDocsPage(await (await fetch(`${base}/docs`)).text());
    expect(config.withDefaultFonts).toBe(false);
    expect(config.telemetry).toBe(false);
    expect(config.proxyUrl).toBe("");
    expect(config.agent).toEqual({ disabled: true });
    expect(config.showDeveloperTools).toBe("never");
  });

  test("/docs/json still answers the OpenAPI document", async () => {
    const response = await fetch(`${base}/docs/json`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/json");
    const document = await readJson(response);
    expect(document.openapi).toMatch(/^3\./);
    expect(document.info.title).toBe("depot");
    expect(document.paths).toHaveProperty("/api/v1/licenses/validate");
    // The asset route is not part of the API.
    expect(Object.keys(document.paths).filter((path) => path.startsWith("/docs"))).toEqual([]);
  });
});

describe("GET /docs may not be framed", () => {
  test.each(["/docs", "/docs/"])("at %s: a CSP with frame-ancestors 'none'", async (path) => {
    const response = await fetch(`${base}${path}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-security-policy")).toBe("frame-ancestors 'none'");
    await response.arrayBuffer();
  });

  test("the document and the bundle are not pages: no policy there", async () => {
    for (const path of ["/docs/json", "/api/health"]) {
      const response = await fetch(`${base}${path}`);
      expect({ path, csp: response.headers.get("content-security-policy") }).toEqual({ path, csp: null });
      await response.arrayBuffer();
    }
  });
});
