// Bytes, text and base64 with what every runtime has (atob, btoa, TextEncoder): no Buffer, so the
// package runs unchanged on Node, Bun, Deno and in Electron.

const STANDARD = /^[A-Za-z0-9+/]*={0,2}$/;
const URL_SAFE = /^[A-Za-z0-9_-]*$/;

export const utf8 = (text: string): Uint8Array<ArrayBuffer> => new TextEncoder().encode(text);

/** UTF-8 that must be well formed: a body with broken UTF-8 is not depot's JSON. */
export const fromUtf8 = (bytes: Uint8Array): string =>
  new TextDecoder("utf-8", { fatal: true }).decode(bytes);

/** Standard base64 (padding optional), or null when it is not. */
export function fromBase64(text: string): Uint8Array<ArrayBuffer> | null {
  if (!STANDARD.test(text) || text.length % 4 === 1) return null;
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

/** base64url without padding (JWS, JWK), or null when it is not. */
export function fromBase64Url(text: string): Uint8Array<ArrayBuffer> | null {
  if (!URL_SAFE.test(text)) return null;
  return fromBase64(text.replaceAll("-", "+").replaceAll("_", "/"));
}

export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  // Chunks keep String.fromCharCode's argument list short for large inputs.
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

export const toBase64Url = (bytes: Uint8Array): string =>
  toBase64(bytes).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");

export const toHex = (bytes: Uint8Array): string =>
  Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

export async function sha256(bytes: Uint8Array<ArrayBuffer>): Promise<Uint8Array<ArrayBuffer>> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
}

/** Compares in time independent of where they differ (digests of attacker-chosen bodies). */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= (a[i] as number) ^ (b[i] as number);
  return diff === 0;
}

/** 16 random bytes, base64url: a nonce nobody can predict, so no answer can be made in advance. */
export const newNonce = (): string => toBase64Url(crypto.getRandomValues(new Uint8Array(16)));
