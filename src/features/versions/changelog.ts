import { Marked } from "marked";
import sanitizeHtml from "sanitize-html";

/**
 * HTML changelogs are stored sanitised: formatting, links and images survive; scripts, styles, event
 * handlers and `javascript:` URLs do not. sanitize-html (htmlparser2 underneath) rather than regexes,
 * because HTML is not a regular language and attackers know it.
 */
export function sanitiseChangelog(html: string): string {
  return sanitizeHtml(html, {
    allowedTags: [...sanitizeHtml.defaults.allowedTags, "img", "h1", "h2"],
    allowedAttributes: {
      ...sanitizeHtml.defaults.allowedAttributes,
      img: ["src", "alt", "title", "width", "height"],
    },
    allowedSchemes: ["http", "https", "mailto"],
    allowProtocolRelative: false,
  });
}

// Our own instance, so nothing else in the process can change how changelogs render.
const markdown = new Marked({ gfm: true, breaks: false });

/**
 * A changelog as HTML that is safe to show: Markdown is rendered, and since it may carry raw HTML it
 * is sanitised like an HTML changelog; HTML changelogs were sanitised at publish and are sanitised
 * again (idempotent, and rows written by other means are covered too).
 */
export function renderChangelog(changelog: string, format: "markdown" | "html"): string {
  if (changelog.trim() === "") return "";
  return sanitiseChangelog(format === "markdown" ? markdown.parse(changelog, { async: false }) : changelog);
}
