import sanitizeHtml from "sanitize-html";
import type { VersionPublishedData } from "../../db/schema/index.ts";
import { renderChangelog } from "../versions/changelog.ts";
import { htmlEmail } from "./html.ts";

export interface VersionEmailInput {
  recipientName: string;
  /** The notification's data: product, version, title, benefit and the signed download link. */
  data: VersionPublishedData;
  changelog: string;
  changelogFormat: "markdown" | "html";
  /** depot's public URL: a changelog's links to it are dropped (versions/changelog.ts). */
  appUrl: string;
}

export interface Email {
  subject: string;
  text: string;
  html: string;
}

/** The e-mail announcing a published version to one holder: `Ultra Perms 2.0.0: Web editor`. */
export function versionEmail(input: VersionEmailInput): Email {
  const { data } = input;
  const expires = linkExpiry(data.download_url);
  const changelog = changelogParts(input.changelog, input.changelogFormat, input.appUrl);
  // One line: a newline in a product name or title must not start a new header or break the headline.
  const product = oneLine(data.product_name);
  const version = oneLine(data.version_number);
  const title = oneLine(data.title);
  const subject = `${product} ${version}: ${title}`;

  const text = [
    `Hello ${input.recipientName},`,
    "",
    `${product} ${version} is out: ${title}`,
    ...(data.benefit_name ? [`Part of your benefit: ${data.benefit_name}`] : []),
    "",
    ...(changelog.text ? ["Changelog:", "", changelog.text, ""] : []),
    `Download: ${data.download_url}`,
    expires ? `The link works until ${expires}.` : "",
    "",
    "You receive this because you hold a license for this product.",
  ].join("\n");

  const e = Bun.escapeHTML;
  const html = htmlEmail(
    subject,
    `<p>Hello ${e(input.recipientName)},</p>
<h1 style="font-size: 1.3em">${e(subject)}</h1>
${data.benefit_name ? `<p>Part of your benefit: <strong>${e(data.benefit_name)}</strong></p>\n` : ""}${changelog.html ? `<h2 style="font-size: 1.1em">Changelog</h2>\n<div>${changelog.html}</div>\n` : ""}<p><a href="${e(data.download_url)}">Download ${e(product)} ${e(version)}</a></p>
${expires ? `<p style="color: #666">The link works until ${e(expires)}.</p>\n` : ""}<p style="color: #666">You receive this because you hold a license for this product.</p>
`,
  );
  return { subject, text, html };
}

/** Markdown is kept as written for the text part; HTML is turned into readable text. */
function changelogParts(changelog: string, format: "markdown" | "html", appUrl: string) {
  if (changelog.trim() === "") return { text: "", html: "" };
  const text = format === "markdown" ? changelog.trim() : htmlToText(changelog);
  return { text, html: renderChangelog(changelog, format, appUrl) };
}

/**
 * Readable text from an HTML changelog: block ends become line breaks, list items dashes, every tag
 * goes (script and style with their content). The regexes only shape whitespace; sanitize-html does
 * the stripping, and its output escapes only &, < and >, which are decoded back (&amp; last).
 */
function htmlToText(html: string): string {
  const shaped = html
    .replace(/<br\s*\/?>/gi, "\n")
    .replace(/<li\b[^>]*>/gi, "\n- ")
    .replace(/<\/(div|tr)>/gi, "\n")
    .replace(/<\/(p|h[1-6]|ul|ol|pre|blockquote|table)>/gi, "\n\n");
  return sanitizeHtml(shaped, { allowedTags: [], allowedAttributes: {} })
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&amp;", "&")
    .split("\n")
    .map((line) => line.trimEnd())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

const oneLine = (value: string) => value.replace(/\s+/g, " ").trim();

/** The signed link's expiry (`expires`, unix seconds) as a UTC date and time, or null. */
function linkExpiry(url: string): string | null {
  const expires = Number(URL.canParse(url) ? new URL(url).searchParams.get("expires") : NaN);
  if (!Number.isFinite(expires) || expires <= 0) return null;
  return `${new Date(expires * 1000).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}
