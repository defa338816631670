// The OpenAPI UI at /docs, served whole by depot: depot often runs where there is no internet, and
// the UI's default (Scalar's script from a CDN, web fonts from Scalar's) left a blank page there.
import type { ElysiaOpenAPIConfig } from "@elysiajs/openapi";
import { Elysia } from "elysia";
import scalarBundlePath from "#scalar/dist/browser/standalone.js" with { type: "file" };
import scalarPackage from "#scalar/package.json" with { type: "json" };
import { pathOf } from "./request-path.ts";

export const DOCS_PATH = "/docs";

/** Versioned, so a newer bundle gets a new URL and browsers may keep this one forever. */
const SCALAR_BUNDLE_URL = `${DOCS_PATH}/assets/scalar-${scalarPackage.version}.js`;

type ScalarOptions = NonNullable<ElysiaOpenAPIConfig["scalar"]>;
/**
 * The plugin's type asks for every option Scalar has a default for, though the plugin only writes
 * the given ones into the page as JSON; and it lacks `agent`, an option of the document Scalar
 * reads from that same JSON.
 */
type PageOptions = Partial<ScalarOptions> & { agent?: { disabled?: boolean } };

/**
 * Scalar's options: the local bundle, and every feature that would reach a host other than depot
 * turned off.
 */
const pageOptions: PageOptions = {
  cdn: SCALAR_BUNDLE_URL,
  // The plugin's default is relative ("docs/json"): opened as /docs/ the page asked for /docs/docs/json
  // and showed nothing.
  url: `${DOCS_PATH}/json`,
  // Otherwise it loads Inter and a monospace face from fonts.scalar.com; the system's fonts do.
  withDefaultFonts: false,
  telemetry: false,
  // No relay: "Test Request" goes from the browser straight to depot, and a token typed into it
  // is never sent to proxy.scalar.com.
  proxyUrl: "",
  // An AI chat backed by api.scalar.com, on by default when the page is opened on localhost.
  agent: { disabled: true },
  // Its MCP buttons ("Generate MCP", "VS Code", "Cursor") upload the API document to
  // api.scalar.com; shown by default when the page is opened on localhost.
  mcp: { disabled: true },
  // Its "Share" and "Deploy" buttons upload the API document to Scalar's services.
  showDeveloperTools: "never",
};
export const scalarOptions = pageOptions as ScalarOptions;

const BUNDLE_HEADERS = {
  "content-type": "text/javascript; charset=utf-8",
  "cache-control": "public, max-age=31536000, immutable",
};

/**
 * The page may not be framed by another site: framed invisibly, it could be clicked through to send
 * "Test Request"s with a token typed into it (clickjacking). Only `frame-ancestors`: the page Scalar's
 * plugin writes carries inline script and style, which a stricter policy would have to list by hash
 * and follow on every upgrade of the plugin.
 */
const DOCS_PAGE_POLICY = "frame-ancestors 'none'";

/**
 * What depot adds to the OpenAPI plugin's UI: the Scalar bundle, embedded in the binary by the `file`
 * import above, and the page's framing policy (on `/docs` and `/docs/`, which the plugin answers).
 */
export function docsUi() {
  return new Elysia({ name: "docs-ui" })
    .onRequest(({ request, set }) => {
      const path = pathOf(request.url);
      if (path === DOCS_PATH || path === `${DOCS_PATH}/`) {
        set.headers["content-security-policy"] = DOCS_PAGE_POLICY;
      }
    })
    .get(SCALAR_BUNDLE_URL, () => new Response(Bun.file(scalarBundlePath), { headers: BUNDLE_HEADERS }), {
      detail: { hide: true },
    });
}
