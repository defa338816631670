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
