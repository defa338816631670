// Builds the single executable dist/depot for this machine from src/main.ts (`npm run build`);
// `npm run build:all` (scripts/build-all.ts) builds one per release platform. How the binary is
// compiled, and why: scripts/lib/compile.ts.
import { mkdirSync, statSync } from "node:fs";
import { relative } from "node:path";
import { buildDashboard } from "../src/dashboard/bundle.ts";
import { initialDataArchive } from "../src/db/initial-data.ts";
import { compileDepot, root } from "./lib/compile.ts";

const outfile = `${root}dist/depot`;
mkdirSync(`${root}dist`, { recursive: true });

const started = performance.now();
// The compiled binary has no sources to bundle at run time: it gets the dashboard already bundled.
const dashboard = await buildDashboard();
// Made once per schema (scripts/initial-data.ts), then taken from .cache/initial-data/.
const initialData = await initialDataArchive();
await compileDepot(outfile, dashboard, initialData);

const size = statSync(outfile).size;
const seconds = ((performance.now() - started) / 1000).toFixed(1);
const gzipped = (text: string) => `${(Bun.gzipSync(text).length / 1024).toFixed(1)} KiB gzipped`;
console.log(
  `dashboard: ${dashboard.script.name} ${gzipped(dashboard.script.text)}, ${dashboard.stylesheet.name} ${gzipped(dashboard.stylesheet.text)}`,
);
console.log(
  `initial data: ${relative(process.cwd(), initialData)} (${(statSync(initialData).size / 1024 / 1024).toFixed(1)} MiB)`,
);
console.log(
  `wrote ${relative(process.cwd(), outfile) || outfile} (${(size / 1024 / 1024).toFixed(1)} MiB, ${size} bytes) in ${seconds} s`,
);
