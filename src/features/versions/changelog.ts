import { Marked } from "marked";
import sanitizeHtml from "sanitize-html";
import { Invalid } from "../../errors.ts";

/** Attributes whose value is a URL the browser may fetch or navigate to (`srcset` has several). */
const URL_ATTRIBUTES = new Set([
  "href",
  "src",
  "cite",
  "poster",
  "action",
  "formaction",
  "background",
  "data",
  "xlink:href",
]);

/** A host name as compared: `depot.test.` (a fully qualified name) reaches the same server as `depot.test`. */
const hostOf = (url: URL) => url.hostname.replace(/\.+$/, "");

/**
 * Whether a changelog's URL leads away from depot: an absolute URL to another host. A relative URL
 * (`/api/…`, `api/…`, `//host/…`, `\\host\…`) resolves against the page that shows it, which is
 * depot's own dashboard; a URL on APP_URL's host is depot whatever its scheme, port or spelling.
 * Either, as `<img src>`, would make every reader's browser request depot's API with their session
 * (a download, say). The value is parsed as browsers parse it (entities already decoded, tabs and
 * newlines dropped, backslashes as slashes, case, percent-encoding and IPv4 forms of the host
 * normalised); it counts as absolute only if it resolves the same on an http: and an https: page,
 * which rules out scheme-relative forms such as `http:/api/…` (relative on an http: page).
 */
export function leadsAway(value: string, appUrl: string): boolean {
  const onHttp = URL.canParse(value, "http://a.invalid/") ? new URL(value, "http://a.invalid/") : null;
  const onHttps = URL.canParse(value, "https://b.invalid/") ? new URL(value, "https://b.invalid/") : null;
  if (!onHttp || !onHttps || onHttp.href !== onHttps.href) return false;
  return hostOf(onHttp) !== hostOf(new URL(appUrl));
}

/** `srcset` holds several URLs (each followed by a size); one pointing at depot is enough to drop it. */
const srcsetLeadsAway = (value: string, appUrl: string) =>
  value
    .split(",")
    .map((candidate) => candidate.trim().split(/\s+/)[0] ?? "")
    .every((url) => url === "" || leadsAway(url, appUrl));

/** The attributes without the URLs that point at depot itself; each dropped value goes to `dropped`. */
function withoutSelfReferences(
  attribs: Record<string, string>,
  appUrl: string,
  dropped: string[],
): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(attribs)) {
    const key = name.toLowerCase();
    const away =
      key === "srcset"
        ? srcsetLeadsAway(value, appUrl)
        : !URL_ATTRIBUTES.has(key) || leadsAway(value, appUrl);
    if (away) kept[name] = value;
    else dropped.push(value);
  }
  return kept;
}

function sanitise(html: string, appUrl: string, dropped: string[]): string {
  return sanitizeHtml(html, {
    allowedTags: [...sanitizeHtml.defaults.allowedTags, "img", "h1", "h2"],
    allowedAttributes: {
      ...sanitizeHtml.defaults.allowedAttributes,
      img: ["src", "alt", "title", "width", "height"],
    },
    allowedSchemes: ["http", "https", "mailto"],
    allowProtocolRelative: false,
    // Runs on every tag before the attribute and scheme checks above, which still apply.
    transformTags: {
      "*": (tagName, attribs) => ({ tagName, attribs: withoutSelfReferences(attribs, appUrl, dropped) }),
    },
  });
}

/**
 * HTML changelogs are stored sanitised: formatting, links and images survive; scripts, styles, event
 * handlers, `javascript:` URLs and URLs that point at depot itself (see `leadsAway`) do not.
 * sanitize-html (htmlparser2 underneath) rather than regexes, because HTML is not a regular language
 * and attackers know it.
 */
export function sanitiseChangelog(html: string, appUrl: string): string {
  return sanitise(html, appUrl, []);
}

// Our own instance, so nothing else in the process can change how changelogs render.
const markdown = new Marked({ gfm: true, breaks: false });

const markdownHtml = (changelog: string) => markdown.parse(changelog, { async: false });

/**
 * A changelog as HTML that is safe to show: Markdown is rendered, and since it may carry raw HTML it
 * is sanitised like an HTML changelog; HTML changelogs were sanitised at publish and are sanitised
 * again (idempotent, and rows written by other means or before a rule was added are covered too).
 */
export function renderChangelog(changelog: string, format: "markdown" | "html", appUrl: string): string {
  if (changelog.trim() === "") return "";
  return sanitiseChangelog(format === "markdown" ? markdownHtml(changelog) : changelog, appUrl);
}

/**
 * A Markdown changelog is stored as written (the API hands it out as such), so one that would link
 * or embed depot itself is refused at publish, naming the first such URL, rather than kept to be
 * dropped each time it is shown. HTML changelogs are sanitised instead, as ever.
 */
export function checkMarkdownLinks(changelog: string, appUrl: string): void {
  const dropped: string[] = [];
  sanitise(markdownHtml(changelog), appUrl, dropped);
  const [first] = dropped;
  if (first === undefined) return;
  throw new Invalid({
    changelog: [
      `The changelog field may only link to other sites: ${first} is relative or on depot's own host.`,
    ],
  });
}
