import { timingSafeEqual } from "node:crypto";

/** A random secret with `bytes` of entropy, URL- and header-safe. */
export const randomSecret = (bytes: number) =>
  Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("base64url");

export const sha256Hex = (value: string) => new Bun.CryptoHasher("sha256").update(value).digest("hex");

/** Compares two hex digests without leaking where they differ. */
export function sameDigest(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && timingSafeEqual(left, right);
}
