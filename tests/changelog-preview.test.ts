// POST /api/changelog/preview: a changelog rendered as depot shows it (the dashboard's preview and
// release notes), sanitised on the server, with the session as with a bearer token; and what a
// published changelog may point at (never depot itself).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { versions } from "../src/db/schema/index.ts";
import { bearer, readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { createProduct, createUser, tokenFor } from "./helpers/factories.ts";
import { sessionHeaders, signIn, userWithPassword } from "./helpers/sessions.ts";

let t: TestApp;
let base: string;
let token: string;

beforeAll(async () => {
  t = await startTestApp({ jobs: "send" });
  base = t.listen();
  token = await tokenFor(t.ctx, await createUser(t.ctx));
});
afterAll(() => t.close());

const preview = (body: unknown, headers: Record<string, string> = bearer(token)) =>
  fetch(`${base}/api/changelog/preview`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify(body),
  });

test("Markdown is rendered, and what it carries that could run is removed", async () => {
  const response = await preview({
    changelog:
      '## Fixed\n\n- the *web* editor\n\n<script>alert(1)</script><a href="javascript:x">x</a><img src=x onerror=alert(1)>',
  });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toStartWith("application/json");
  const { data } = (await readJson(response)) as { data: { html: string } };
  expect(data.html).toContain("<h2>Fixed</h2>");
  expect(data.html).toContain("<li>the <em>web</em> editor</li>");
  expect(data.html).not.toContain("<script");
  expect(data.html).not.toContain("javascript:");
  expect(data.html).not.toContain("onerror");
});

test("HTML changelogs are sanitised, not rendered as Markdown; an empty one is empty", async () => {
  const html = await readJson(
    await preview({ changelog: "<p>*as is*</p><style>p{}</style>", changelog_format: "html" }),
  );
  expect(html).toEqual({ data: { html: "<p>*as is*</p>" } });
  expect(await readJson(await preview({ changelog: "  " }))).toEqual({ data: { html: "" } });
});

test("the dashboard's session may preview (with its CSRF token); bad input is a 422 per field", async () => {
  const user = await userWithPassword(t.ctx, "correct horse battery");
  const session = await signIn(base, user.email, "correct horse battery");
  const viaSession = await preview({ changelog: "**bold**" }, sessionHeaders(session));
  expect(viaSession.status).toBe(200);
  expect(await readJson(viaSession)).toEqual({ data: { html: "<p><strong>bold</strong></p>\n" } });

  const wrong = await preview({ changelog: 5, changelog_format: "rtf" });
  expect(wrong.status).toBe(422);
  const body = (await readJson(wrong)) as { message: string; errors: Record<string, string[]> };
  expect(Object.keys(body.errors).sort()).toEqual(["changelog", "changelog_format"]);
  expect(typeof body.message).toBe("string");

  const anonymous = await fetch(`${base}/api/changelog/preview`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "{}",
  });
  expect(anonymous.status).toBe(401);
  expect(await readJson(anonymous)).toEqual({ message: "Unauthenticated." });
});

// --- links to depot itself ------------------------------------------------------------------------

/**
 * Ways to write a URL that a reader's browser resolves to depot (APP_URL is http://depot.test in
 * tests): relative, scheme-relative, on APP_URL's host in any spelling, encoded.
 */
const SELF_URLS = [
  "/api/products/1/versions/5/download",
  "api/products/1/versions/5/download",
  "  /api/products/1/versions/5/download",
  "/%61pi/products/1/versions/5/download",
  "//depot.test/api/products/1/versions/5/download",
  "\\\\depot.test\\api\\products\\1\\versions\\5\\download",
  "/\\depot.test/api/products/1/versions/5/download",
  "http:/api/products/1/versions/5/download",
  "https:depot.test/api/products/1/versions/5/download",
  "http:\\\\depot.test\\api\\products\\1\\versions\\5\\download",
  "http://depot.test/api/products/1/versions/5/download",
  "HTTP://DEPOT.TEST/api/products/1/versions/5/download",
  "https://depot.test:8443/api/products/1/versions/5/download",
  "http://depot.test./api/products/1/versions/5/download",
  "http://%64epot.test/api/products/1/versions/5/download",
  "#top",
];

const htmlOf = async (changelog: string, format: "markdown" | "html") => {
  const response = await preview({ changelog, changelog_format: format });
  expect(response.status).toBe(200);
  return ((await readJson(response)) as { data: { html: string } }).data.html;
};

describe("a changelog never points at depot itself", () => {
  test("HTML: every spelling of a depot URL loses its src or href; other sites' stay", async () => {
    for (const url of SELF_URLS) {
      const escaped = Bun.escapeHTML(url);
      const html = await htmlOf(`<p><img src="${escaped}" alt="x"><a href="${escaped}">go</a></p>`, "html");
      expect({ url, html }).toEqual({ url, html: '<p><img alt="x" /><a>go</a></p>' });
    }
    // Entity-encoded slashes are decoded before the check, as the browser decodes them.
    expect(
      await htmlOf('<img src="&#47;api&#47;products&#47;1&#47;versions&#47;5&#47;download">', "html"),
    ).toBe("<img />");
    // srcset (not allowed at all) goes; another site's image and link, and mailto, stay.
    expect(
      await htmlOf(
        '<img src="https://cdn.test/shot.png" srcset="/api/products/1/versions/5/download 2x">' +
          '<a href="https://example.com/docs">docs</a> <a href="mailto:help@example.com">mail</a>',
        "html",
      ),
    ).toBe(
      '<img src="https://cdn.test/shot.png" /><a href="https://example.com/docs">docs</a> ' +
        '<a href="mailto:help@example.com">mail</a>',
    );
  });

  test("Markdown: images, links, reference links and raw HTML pointing at depot are dropped", async () => {
    const html = await htmlOf(
      [
        "![shot](/api/products/1/versions/5/download)",
        "[docs](http://DEPOT.test/docs) and [elsewhere](https://example.com/)",
        "[ref][1]",
        '<img src="//depot.test/api/products/2/versions/9/download">',
        "",
        "[1]: http:/api/products/1/versions/5/download",
      ].join("\n\n"),
      "markdown",
    );
    expect(html).not.toContain("depot.test");
    expect(html).not.toContain("/api/");
    expect(html).toContain('<img alt="shot" />');
    expect(html).toContain('<a>docs</a> and <a href="https://example.com/">elsewhere</a>');
    expect(html).toContain("<a>ref</a>");
  });
});

describe("publishing: a changelog pointing at depot", () => {
  let vendorToken: string;
  let product: { id: number };

  beforeAll(async () => {
    const vendor = await createUser(t.ctx, { role: "vendor" });
    vendorToken = await tokenFor(t.ctx, vendor);
    product = await createProduct(t.ctx, vendor);
  });

  const publish = (version_name: string, changelog: string, changelog_format: "markdown" | "html") =>
    fetch(`${base}/api/products/${product.id}/versions`, {
      method: "POST",
      headers: { ...bearer(vendorToken), "content-type": "application/json" },
      body: JSON.stringify({
        version_name,
        title: "Release",
        changelog,
        changelog_format,
        file: { filename: "plugin.jar", content: Buffer.from(`bytes ${version_name}`).toString("base64") },
      }),
    });

  test("HTML is stored without the URL (and listed so)", async () => {
    const response = await publish(
      "1.0.0",
      '<p>New <img src="/api/products/1/versions/5/download"> <a href="https://example.com/">site</a></p>',
      "html",
    );
    expect(response.status).toBe(201);
    const { data } = await readJson(response);
    expect(data.changelog).toBe('<p>New <img /> <a href="https://example.com/">site</a></p>');
    const [stored] = await t.ctx.db.select().from(versions).where(eq(versions.id, data.id));
    expect(stored?.changelog).toBe(data.changelog);
  });

  test("Markdown, stored as written, is refused with a 422 naming the URL; nothing is kept", async () => {
    const response = await publish(
      "1.1.0",
      "Fixed.\n\n![shot](/api/products/1/versions/5/download)",
      "markdown",
    );
    expect(response.status).toBe(422);
    expect(await readJson(response)).toEqual({
      message:
        "The changelog field may only link to other sites: /api/products/1/versions/5/download is relative or on depot's own host.",
      errors: {
        changelog: [
          "The changelog field may only link to other sites: /api/products/1/versions/5/download is relative or on depot's own host.",
        ],
      },
    });
    const kept = await t.ctx.db.select().from(versions).where(eq(versions.versionNumber, "1.1.0"));
    expect(kept).toEqual([]);
    // Links to other sites are fine.
    expect((await publish("1.1.0", "See [the docs](https://example.com/docs).", "markdown")).status).toBe(
      201,
    );
  });
});
