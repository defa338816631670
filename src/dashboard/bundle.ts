// Bundles the dashboard's browser code (app/) into one minified script and one stylesheet, in memory,
// beside its icon (favicon.svg).
// scripts/build.ts runs this before compiling and embeds the result in the binary (prebuilt.ts);
// run from the sources, routes.ts runs it once, on the first request for the dashboard.
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

export interface DashboardAsset {
  /** File name with its content hash, e.g. `main-1a2b3c4d.js`: served under ASSETS_PATH forever. */
  name: string;
  contentType: string;
  text: string;
}

export interface DashboardBuild {
  script: DashboardAsset;
  stylesheet: DashboardAsset;
  /** The page's icon, linked by the shell; /favicon.ico is the same drawing (routes.ts). */
  icon: DashboardAsset;
}

const ENTRY = fileURLToPath(new URL("./app/main.tsx", import.meta.url));
const ICON = fileURLToPath(new URL("./favicon.svg", import.meta.url));

const CONTENT_TYPES: Record<string, string> = {
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  svg: "image/svg+xml",
};

/**
 * `main-1a2b3c4d5e6f.js`: named by a hash of the content alone (Bun's [hash] also varies with the
 * directory it runs in, and instances started from different directories must agree on the names).
 */
function asset(stem: string, extension: string, text: string, contentType?: string): DashboardAsset {
  const hash = new Bun.CryptoHasher("sha256").update(text).digest("hex").slice(0, 12);
  return {
    name: `${stem}-${hash}.${extension}`,
    contentType: CONTENT_TYPES[extension] ?? contentType ?? "application/octet-stream",
    text,
  };
}

/** Bun.build over app/, in memory; with `metafile`, the answer also lists the files it bundled. */
function bundleApp(metafile = false) {
  return Bun.build({
    entrypoints: [ENTRY],
    target: "browser",
    format: "esm",
    minify: true,
    // One script, no lazy chunks: the shell and sign-in are the whole first load, and one request
    // is simplest to embed, cache and measure against the size budget.
    splitting: false,
    // Named below by a hash of the content alone (asset()).
    naming: { entry: "[name].[ext]", asset: "[name].[ext]" },
    define: { "process.env.NODE_ENV": JSON.stringify("production") },
    metafile,
    throw: false,
  });
}

/**
 * The source files the script is made of, as absolute paths: app/ and Preact, and of the server only
 * what a page shows as is (tests/dashboard.test.ts holds it to that; app/wire.ts's imports are types).
 */
export async function bundledSources(): Promise<string[]> {
  const result = await bundleApp(true);
  if (!result.success) throw new AggregateError(result.logs, "the dashboard did not build");
  return Object.keys(result.metafile?.inputs ?? {}).map((path) => resolve(path));
}

export async function buildDashboard(): Promise<DashboardBuild> {
  const result = await bundleApp();
  if (!result.success) {
    throw new AggregateError(result.logs, `the dashboard did not build: ${result.logs.join("; ")}`);
  }
  const assets = await Promise.all(
    result.outputs.map(async (output): Promise<DashboardAsset> => {
      const [stem = "main", extension = ""] = (output.path.split("/").pop() ?? "").split(".");
      return asset(stem, extension, await output.text(), output.type);
    }),
  );
  const script = assets.find((asset) => asset.name.endsWith(".js"));
  const stylesheet = assets.find((asset) => asset.name.endsWith(".css"));
  if (!script || !stylesheet || assets.length !== 2) {
    throw new Error(
      `the dashboard build wrote ${assets.map((a) => a.name).join(", ")}: one .js and one .css expected`,
    );
  }
  return { script, stylesheet, icon: asset("favicon", "svg", await Bun.file(ICON).text()) };
}
