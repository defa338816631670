/**
 * A Sparkle 2 appcast: RSS 2.0 with Sparkle's namespace, one `<item>` per offered version, newest
 * first. Sparkle picks the newest item it may take (its channel, its system) and checks the
 * enclosure's `sparkle:edSignature` against the app's `SUPublicEDKey` before installing.
 */

export interface AppcastItem {
  /** The version name (`sparkle:shortVersionString`, and `sparkle:version`, which Sparkle compares). */
  version: string;
  /** Omitted for `stable`: an item without a channel is for every client. */
  channel: string;
  critical: boolean;
  /** The changelog as HTML (Sparkle shows it as the release notes). */
  notesHtml: string;
  publishedAt: Date;
  enclosure: { url: string; length: number; edSignature: string | null };
}

export interface Appcast {
  title: string;
  link: string;
  items: AppcastItem[];
}

const SPARKLE_NS = "http://www.andymatuschak.org/xml-namespaces/sparkle";

/** Characters XML 1.0 does not allow at all (most C0 controls, lone surrogates, U+FFFE/U+FFFF). */
const NOT_XML = /[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu;

/** Text or an attribute value, escaped; characters XML cannot carry are dropped. */
export function xmlText(value: string): string {
  return value
    .replace(NOT_XML, "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

/** RFC 822 dates, as RSS 2.0 wants them: `Thu, 26 Nov 2026 09:00:00 +0000`. */
const rfc822 = (date: Date) => date.toUTCString().replace("GMT", "+0000");

function item(entry: AppcastItem): string {
  const { enclosure } = entry;
  const signature =
    enclosure.edSignature === null ? "" : ` sparkle:edSignature="${xmlText(enclosure.edSignature)}"`;
  return [
    "    <item>",
    `      <title>${xmlText(entry.version)}</title>`,
    `      <pubDate>${rfc822(entry.publishedAt)}</pubDate>`,
    `      <sparkle:version>${xmlText(entry.version)}</sparkle:version>`,
    `      <sparkle:shortVersionString>${xmlText(entry.version)}</sparkle:shortVersionString>`,
    ...(entry.channel === "stable"
      ? []
      : [`      <sparkle:channel>${xmlText(entry.channel)}</sparkle:channel>`]),
    ...(entry.critical ? ["      <sparkle:criticalUpdate></sparkle:criticalUpdate>"] : []),
    `      <description>${xmlText(entry.notesHtml)}</description>`,
    `      <enclosure url="${xmlText(enclosure.url)}" length="${enclosure.length}" type="application/octet-stream"${signature}/>`,
    "    </item>",
  ].join("\n");
}

export function appcastXml(appcast: Appcast): string {
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    `<rss version="2.0" xmlns:sparkle="${SPARKLE_NS}">`,
    "  <channel>",
    `    <title>${xmlText(appcast.title)}</title>`,
    `    <link>${xmlText(appcast.link)}</link>`,
    `    <description>${xmlText(`Updates of ${appcast.title}`)}</description>`,
    ...appcast.items.map(item),
    "  </channel>",
    "</rss>",
    "",
  ].join("\n");
}
