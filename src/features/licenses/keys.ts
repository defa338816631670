/** Crockford's base32: no I, L, O or U, so a key read aloud or retyped is unambiguous. */
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const GROUPS = 5;
const GROUP_LENGTH = 5;

/**
 * `XXXXX-XXXXX-XXXXX-XXXXX-XXXXX`: 25 symbols × 5 bits = 125 random bits, grouped for humans.
 */
export function generateLicenseKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let bits = 0n;
  for (const byte of bytes) bits = (bits << 8n) | BigInt(byte);
  let symbols = "";
  for (let i = 0; i < GROUPS * GROUP_LENGTH; i++) {
    symbols += ALPHABET[Number(bits & 31n)];
    bits >>= 5n;
  }
  return symbols.match(new RegExp(`.{${GROUP_LENGTH}}`, "g"))?.join("-") ?? symbols;
}

/** How a key typed by a customer is looked up: surrounding spaces and letter case do not matter. */
export const normaliseLicenseKey = (key: string) => key.trim().toUpperCase();

/** Only keys in our alphabet can exist; anything else (a NUL byte PostgreSQL would refuse) names no license. */
export const mayBeLicenseKey = (normalisedKey: string) => /^[0-9A-Z-]+$/.test(normalisedKey);
