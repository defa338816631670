import { createHmac, timingSafeEqual } from "node:crypto";
import { toId } from "./validation/ids.ts";

/**
 * Laravel's signed URLs, `?user=<id>&expires=<unix seconds>&signature=<hex HMAC-SHA256(key, url without
 * signature)>`, with the user the link was issued to among the signed parameters: whoever uses the link
 * acts as that user, so what the user may do is checked again on every use, and changing the user (or
 * any other part of the link) breaks the signature.
 */
export function signUrl(url: string, key: string, grant: { userId: number; expiresAt: Date }): string {
  const signed = new URL(url);
  signed.searchParams.delete("signature");
  signed.searchParams.set("user", String(grant.userId));
  signed.searchParams.set("expires", String(Math.floor(grant.expiresAt.getTime() / 1000)));
  signed.searchParams.set("signature", hmac(key, signed.toString()));
  return signed.toString();
}

/**
 * What a signed URL proves. `userId` is null for a link signed before links named their user: its
 * signature is good, but it says nobody whose rights could be checked again.
 */
export type SignatureCheck =
  | { status: "valid"; userId: number | null }
  | { status: "expired" }
  | { status: "invalid" };

/** Checks a URL as the public sees it (built from APP_URL, so a proxy in front changes nothing). */
export function checkSignedUrl(url: URL, key: string, now = Date.now()): SignatureCheck {
  const signature = url.searchParams.get("signature") ?? "";
  const unsigned = new URL(url);
  unsigned.searchParams.delete("signature");
  const expected = hmac(key, unsigned.toString());
  const given = Buffer.from(signature, "utf8");
  if (given.length !== expected.length || !timingSafeEqual(given, Buffer.from(expected, "utf8")))
    return { status: "invalid" };
  const expires = Number(url.searchParams.get("expires"));
  if (!Number.isFinite(expires) || expires * 1000 <= now) return { status: "expired" };
  const user = url.searchParams.get("user");
  if (user === null) return { status: "valid", userId: null };
  // Only depot signs, and it writes ids as digits: anything else under a good signature names nobody.
  const userId = toId(user);
  return userId === null ? { status: "invalid" } : { status: "valid", userId };
}

const hmac = (key: string, text: string) => createHmac("sha256", key).update(text).digest("hex");
