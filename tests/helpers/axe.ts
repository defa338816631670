// An accessibility check with axe-core, run inside the page under test. Its source is evaluated
// through the DevTools protocol, which the dashboard's CSP (no inline scripts) does not govern, so
// the page is checked exactly as it is served.
import type { Page } from "playwright-core";

const AXE_SOURCE = await Bun.file(require.resolve("axe-core/axe.min.js")).text();

export interface Violation {
  id: string;
  impact: string | null;
  help: string;
  /** CSS selectors of the offending elements. */
  targets: string[];
}

/** The WCAG A/AA violations axe finds on the page as it is now, serious and critical ones only. */
export async function seriousViolations(page: Page): Promise<Violation[]> {
  await page.evaluate(AXE_SOURCE);
  const found = await page.evaluate<Violation[]>(`
    axe
      .run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] } })
      .then((results) =>
        results.violations.map((violation) => ({
          id: violation.id,
          impact: violation.impact,
          help: violation.help,
          targets: violation.nodes.map((node) => node.target.join(" ")),
        })),
      )
  `);
  return found.filter((violation) => violation.impact === "serious" || violation.impact === "critical");
}
