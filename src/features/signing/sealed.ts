import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

/**
 * Private keys at rest: AES-256-GCM under a key derived from APP_KEY, with the key's `kid` as
 * associated data so a sealed key cannot be moved to another row. `v1.<iv>.<ciphertext>.<tag>`.
 */
const VERSION = "v1";

const sealingKey = (appKey: string) =>
  Buffer.from(hkdfSync("sha256", appKey, "depot", "signing-key-sealing", 32));

export function seal(appKey: string, kid: string, plaintext: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", sealingKey(appKey), iv).setAAD(Buffer.from(kid));
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return [VERSION, iv, ciphertext, cipher.getAuthTag()]
    .map((part) => (typeof part === "string" ? part : part.toString("base64url")))
    .join(".");
}

/** The plaintext, or null when APP_KEY is not the one it was sealed with (or the text is damaged). */
export function unseal(appKey: string, kid: string, sealed: string): Buffer | null {
  const [version, iv, ciphertext, tag] = sealed.split(".");
  if (version !== VERSION || !iv || !ciphertext || !tag) return null;
  try {
    const decipher = createDecipheriv("aes-256-gcm", sealingKey(appKey), Buffer.from(iv, "base64url"))
      .setAAD(Buffer.from(kid))
      .setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]);
  } catch {
    return null;
  }
}
