// The dashboard as scripts/build.ts bundled it for the compiled binary, which carries no sources to
// bundle at run time. The build replaces this module's text (Bun.build `files`) with the bundle; in
// the sources it stays null and routes.ts bundles app/ on the first request instead.
import type { DashboardBuild } from "./bundle.ts";

export const prebuilt: DashboardBuild | null = null;
