import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Laravel's signed URLs: `?expires=<unix seconds>&signature=<hex HMAC-SHA256(key, url without signature)>`.
 * Whoever holds the link may use it until it expires; changing any part of it breaks the signature.
 */
export function signUrl(url: string, key: string, expiresAt: Date): string {
  const signed = new URL(url);
  signed.searchParams.delete("signature");
  signed.searchParams.set("expires", String(Math.floor(expiresAt.getTime() / 1000)));
  signed.searchParams.set("signature", hmac(key, signed.toString()));
  return signed.toString();
}

export type SignatureCheck = "valid" | "expired" | "invalid";

/** Checks a URL as the public sees it (built from APP_URL, so a proxy in front changes nothing). */
export function checkSignedUrl(url: URL, key: string, now = Date.now()): SignatureCheck {
  const signature = url.searchParams.get("signature") ?? "";
  const unsigned = new URL(url);
  unsigned.searchParams.delete("signature");
  const expected = hmac(key, unsigned.toString());
  const given = Buffer.from(signature, "utf8");
  if (given.length !== expected.length || !timingSafeEqual(given, Buffer.from(expected, "utf8")))
    return "invalid";
  const expires = Number(url.searchParams.get("expires"));
  return Number.isFinite(expires) && expires * 1000 > now ? "valid" : "expired";
}

const hmac = (key: string, text: string) => createHmac("sha256", key).update(text).digest("hex");
