// Serves the dashboard: its HTML shell at `/`, `/sign-in`, `/set-password`, `/setup` (while no user
// exists) and `/dashboard/*` (the browser routes from
// there), its script, stylesheet and icon under hashed names, and the icon as /favicon.ico. Everything
// else (/api, /docs, /storage…) is untouched: the shell answers only these paths, so an unknown /api
// route is still a JSON 404.
import { Elysia } from "elysia";
import { NotFound } from "../errors.ts";
import { buildDashboard, type DashboardAsset, type DashboardBuild } from "./bundle.ts";
// A file path, so the compiled binary embeds it; scripts/favicon.ts makes it from favicon.svg.
import faviconIcoPath from "./favicon.ico" with { type: "file" };
import { prebuilt } from "./prebuilt.ts";
import { ASSETS_PATH, SECURITY_HEADERS, shellHtml } from "./shell.ts";

/** The pages the browser code routes; any other path under /dashboard/ is its "page not found". */
export const SHELL_PATHS = ["/", "/sign-in", "/set-password", "/dashboard", "/dashboard/*"];

interface Served {
  html: string;
  /** By hashed file name, with its gzip, compressed once: the budget is for compressed bytes. */
  assets: Map<string, { asset: DashboardAsset; gzipped: Uint8Array }>;
}

const served = (build: DashboardBuild): Served => ({
  html: shellHtml(build),
  assets: new Map(
    [build.script, build.stylesheet, build.icon].map((asset) => [
      asset.name,
      { asset, gzipped: Bun.gzipSync(asset.text) },
    ]),
  ),
});

/** The compiled binary's bundle, or the sources bundled once, on the first request that needs it. */
let loading: Promise<Served> | undefined;
const dashboard = () => {
  if (!loading) {
    loading = (prebuilt ? Promise.resolve(prebuilt) : buildDashboard()).then(served);
    // A failed build is tried again by the next request rather than remembered.
    loading.catch(() => {
      loading = undefined;
    });
  }
  return loading;
};

const SHELL_HEADERS = {
  ...SECURITY_HEADERS,
  "content-type": "text/html; charset=utf-8",
  // Always revalidated: the page names the current assets, which may change with every release.
  "cache-control": "no-cache",
};

const IMMUTABLE = "public, max-age=31536000, immutable";

/**
 * For what asks /favicon.ico without reading the page (bookmarks, feed readers, older browsers). Its
 * URL cannot change with the icon, so it is not immutable; a week spares a request on every visit.
 */
const FAVICON_HEADERS = {
  ...SECURITY_HEADERS,
  "content-type": "image/x-icon",
  "cache-control": "public, max-age=604800",
};
let faviconIco: Promise<Uint8Array> | undefined;

/** The first-run page (features/setup): the shell while no user exists, 404 from then on. */
export const SETUP_PATH = "/setup";

export function dashboardRoutes({ setupOpen }: { setupOpen: () => Promise<boolean> }) {
  const app = new Elysia({ name: "dashboard" });
  const shell = async () => new Response((await dashboard()).html, { headers: SHELL_HEADERS });
  for (const path of SHELL_PATHS) app.get(path, shell, { detail: { hide: true } });
  app.get(
    SETUP_PATH,
    async () => {
      if (!(await setupOpen())) throw new NotFound("Route");
      return shell();
    },
    { detail: { hide: true } },
  );
  app.get(
    "/favicon.ico",
    async () => {
      faviconIco ??= Bun.file(faviconIcoPath).bytes();
      return new Response(await faviconIco, { headers: FAVICON_HEADERS });
    },
    { detail: { hide: true } },
  );
  return app.get(
    `${ASSETS_PATH}/:file`,
    async ({ params, request }) => {
      const found = (await dashboard()).assets.get(params.file);
      if (!found) throw new NotFound("Asset");
      const headers: Record<string, string> = {
        ...SECURITY_HEADERS,
        "content-type": found.asset.contentType,
        "cache-control": IMMUTABLE,
        vary: "accept-encoding",
      };
      if (/\bgzip\b/.test(request.headers.get("accept-encoding") ?? "")) {
        return new Response(found.gzipped, { headers: { ...headers, "content-encoding": "gzip" } });
      }
      return new Response(found.asset.text, { headers });
    },
    { detail: { hide: true } },
  );
}
