import type { AppContext } from "../../context.ts";
import { Invalid } from "../../errors.ts";
import { BIDI_CONTROLS } from "../../validation/schemas.ts";
import { checkTarget } from "./address.ts";

/**
 * Control characters (C0, DEL, C1) and whitespace of any kind, anywhere in the raw string. The URL
 * parser silently drops tabs and newlines and trims the ends, so the URL stored and shown would not
 * be the one depot calls; a NUL would not even fit in a PostgreSQL text column.
 */
const CONTROL_OR_SPACE = /[\p{Cc}\s]/u;

/**
 * A URL as depot calls it, parsed and written back: `http://a\@b/` reads as user `a\` at host `b`
 * but is sent to host `a` (path `/@b/`), so it is stored and shown as `http://a/@b/`; so are upper
 * case, default ports, dot segments and numeric IPv4 forms. Rows stored before this kept the URL as
 * typed, so the list writes those back the same way.
 */
export const canonicalUrl = (url: string): string => (URL.canParse(url) ? new URL(url).href : url);

/**
 * Parses and checks a webhook URL as registered; each message names the problem (422 on `url`).
 * The URL returned is what is stored (its `href`, the canonical form).
 * Credentials are refused: they would be stored and listed in clear, sent as Basic auth on every
 * delivery, and `https://ci.example.com@203.0.113.7/` reads as a host it is not.
 */
export async function checkWebhookUrl(ctx: Pick<AppContext, "config">, raw: string): Promise<URL> {
  if (CONTROL_OR_SPACE.test(raw)) {
    throw new Invalid({ url: ["The url field must not contain control characters or whitespace."] });
  }
  // Stored percent-encoded, but typed they reorder the URL on the page it was pasted from.
  if (BIDI_CONTROLS.test(raw)) {
    throw new Invalid({ url: ["The url field must not contain bidirectional control characters."] });
  }
  const url = URL.canParse(raw) ? new URL(raw) : null;
  if (!url || !["http:", "https:"].includes(url.protocol) || url.hostname === "") {
    throw new Invalid({ url: ["The url field must be a valid http or https URL."] });
  }
  if (url.username !== "" || url.password !== "") {
    throw new Invalid({ url: ["The url field must not contain a user name or password."] });
  }
  const target = await checkTarget(url, ctx.config.webhookAllowPrivate);
  if (!target.ok) throw new Invalid({ url: [target.reason] });
  return url;
}
