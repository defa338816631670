// Signs a release's SHA256SUMS in minisign's format (https://jedisct1.github.io/minisign/), with a
// minisign secret key file: `npm run build:all` with DEPOT_RELEASE_KEY_FILE writes
// dist/SHA256SUMS.minisig, which scripts/install.sh checks against the release's public key, and
// anyone can with `minisign -V -p depot-release.pub -m SHA256SUMS`.
//
// The signature is minisign's legacy variant (`Ed`: Ed25519 over the file itself), not its default
// prehashed one (`ED`: Ed25519 over the file's BLAKE2b-512). Every minisign verifies both, but
// install.sh also verifies with openssl where minisign is missing: `openssl pkeyutl -verify -rawin`
// (1.1.1 and newer) checks an `Ed` signature in one call, while `ED` needs BLAKE2b-512 first, which
// not every openssl has (LibreSSL has none). Prehashing exists for files too large to hold in
// memory; SHA256SUMS is a few hundred bytes.
import { createPrivateKey, createPublicKey, type KeyObject, sign } from "node:crypto";
import { readFileSync } from "node:fs";

export class ReleaseKeyError extends Error {}

export interface ReleaseKey {
  /** The key id minisign prints: its 8 bytes, little-endian, in hex without leading zeros (`%PRIX64`). */
  readonly id: string;
  /** The public key as minisign writes it: the second line of a .pub file, `RW…`. */
  readonly publicKey: string;
  sign(message: Uint8Array): Buffer;
  /** The key id's 8 bytes, as signatures carry them. */
  readonly idBytes: Buffer;
}

/** "Ed", "\0\0" (no password) or "Sc" (scrypt), "B2", salt, opslimit, memlimit, key id, secret key, checksum. */
const SECRET_KEY_BYTES = 2 + 2 + 2 + 32 + 8 + 8 + 8 + 64 + 32;
const KEY_ID_OFFSET = 54;

/**
 * Reads a minisign secret key file (`minisign -G -W`). A password-protected key is refused: CI has
 * nobody to type it; remove the password from the copy CI holds (`minisign -C -W -s KEY`), or sign by
 * hand with minisign (docs/operators.md: Releasing).
 */
export function readReleaseKey(path: string): ReleaseKey {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ReleaseKeyError(`${path} cannot be read (${(error as NodeJS.ErrnoException).code})`);
  }
  const line = text.split(/\r?\n/).find((l) => l !== "" && !l.startsWith("untrusted comment:"));
  const bytes = Buffer.from(line ?? "", "base64");
  if (bytes.length !== SECRET_KEY_BYTES || bytes.subarray(0, 2).toString("latin1") !== "Ed") {
    throw new ReleaseKeyError(`${path} is not a minisign secret key`);
  }
  if (bytes.subarray(2, 4).toString("latin1") !== "\0\0") {
    throw new ReleaseKeyError(
      `${path} is protected by a password; build:all signs only with a key without one ` +
        "(minisign -C -W -s KEY removes it), or sign dist/SHA256SUMS by hand with minisign -S -l",
    );
  }
  const idBytes = Buffer.from(bytes.subarray(KEY_ID_OFFSET, KEY_ID_OFFSET + 8));
  const seed = bytes.subarray(KEY_ID_OFFSET + 8, KEY_ID_OFFSET + 40);
  const storedPublic = bytes.subarray(KEY_ID_OFFSET + 40, KEY_ID_OFFSET + 72);
  const privateKey = createPrivateKey({
    key: { kty: "OKP", crv: "Ed25519", d: seed.toString("base64url"), x: storedPublic.toString("base64url") },
    format: "jwk",
  });
  const derived = Buffer.from(createPublicKey(privateKey).export({ format: "jwk" }).x ?? "", "base64url");
  if (!derived.equals(storedPublic)) throw new ReleaseKeyError(`${path} is damaged (its two halves differ)`);
  return {
    id: Buffer.from(idBytes).readBigUInt64LE().toString(16).toUpperCase(),
    idBytes,
    publicKey: Buffer.concat([Buffer.from("Ed"), idBytes, storedPublic]).toString("base64"),
    sign: (message) => signWith(privateKey, message),
  };
}

const signWith = (key: KeyObject, message: Uint8Array) => sign(null, message, key);

/**
 * The .minisig text for `content`: the signature of the file, and the signature of that signature
 * with the trusted comment (which minisign prints when it verifies, and cannot be changed unseen).
 */
export function minisignSignature(key: ReleaseKey, content: Uint8Array, trustedComment: string): string {
  if (/[\r\n]/.test(trustedComment)) throw new Error("a trusted comment is one line");
  const signature = key.sign(content);
  const global = key.sign(Buffer.concat([signature, Buffer.from(trustedComment)]));
  return [
    `untrusted comment: signature from depot release key ${key.id}`,
    Buffer.concat([Buffer.from("Ed"), key.idBytes, signature]).toString("base64"),
    `trusted comment: ${trustedComment}`,
    global.toString("base64"),
    "",
  ].join("\n");
}

/** The line of scripts/install.sh that holds the release's public key (empty in the repository). */
const PIN = /^PINNED_PUBLIC_KEY="([^"]*)"$/m;

/**
 * scripts/install.sh with `key`'s public key pinned, as the release publishes it. A script that
 * already pins another key is refused: a release signed with the wrong key would install nowhere.
 */
export function pinnedInstallScript(script: string, key: ReleaseKey): string {
  const pinned = PIN.exec(script);
  if (!pinned) throw new ReleaseKeyError("scripts/install.sh has no PINNED_PUBLIC_KEY line");
  if (pinned[1] !== "" && pinned[1] !== key.publicKey) {
    throw new ReleaseKeyError(
      `scripts/install.sh pins the public key ${pinned[1]}, not this key's (${key.publicKey})`,
    );
  }
  return script.replace(PIN, `PINNED_PUBLIC_KEY="${key.publicKey}"`);
}
