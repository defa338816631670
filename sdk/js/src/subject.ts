import { UnverifiableError } from "./errors.js";

// Check 7 of sdk/README.md: an answer is about what was asked. The request is not signed, so a server
// relaying it could swap in its own license key (or drop the product) and get depot to sign a
// genuine answer about something else; only the answer's own names can tell.

/** License keys as depot compares them: upper-cased, trimmed. */
export const sameKey = (a: string, b: string) => a.trim().toUpperCase() === b.trim().toUpperCase();

/** Ids are strings of digits; "7" and "007" name one product. */
export const sameId = (a: unknown, b: string) =>
  typeof a === "string" && /^\d+$/.test(a) && /^\d+$/.test(b) && BigInt(a) === BigInt(b);

export const aboutSomethingElse = (what: string) =>
  new UnverifiableError(`the answer is about another ${what}`, "subject");

/** The codes depot gives before it compares the product: a license of any product may carry them. */
const BEFORE_PRODUCT = new Set(["REVOKED", "EXPIRED"]);

/**
 * A validation's license is the key asked about and, once depot has compared it, the product:
 * another product's for PRODUCT_MISMATCH, this one for every other code.
 */
export function checkLicense(license: unknown, key: string, productId: string, code: string) {
  if (license === null) return;
  const named = license as { key?: unknown; productId?: unknown } | undefined;
  if (typeof named?.key !== "string" || !sameKey(named.key, key)) throw aboutSomethingElse("license key");
  if (BEFORE_PRODUCT.has(code)) return;
  if (sameId(named.productId, productId) === (code === "PRODUCT_MISMATCH"))
    throw aboutSomethingElse("product");
}

/** A machine answer's machine is the one asked about. */
export function checkMachine(machine: unknown, expected: { id?: string; fingerprint?: string }) {
  const named = machine as { id?: unknown; fingerprint?: unknown } | null | undefined;
  if (typeof named?.id !== "string" || typeof named.fingerprint !== "string") {
    throw new UnverifiableError("the answer names no machine", "body");
  }
  if (expected.id !== undefined && named.id !== expected.id) throw aboutSomethingElse("machine");
  if (expected.fingerprint !== undefined && named.fingerprint !== expected.fingerprint) {
    throw aboutSomethingElse("machine");
  }
}
