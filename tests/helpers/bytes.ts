/** Random bytes of any size (getRandomValues fills at most 64 KiB at a time). */
export function randomBytes(size: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(size);
  for (let offset = 0; offset < size; offset += 65536)
    crypto.getRandomValues(bytes.subarray(offset, Math.min(size, offset + 65536)));
  return bytes;
}

/** Hex SHA-256, as depot reports a file's digest. */
export const sha256 = (bytes: Uint8Array | ArrayBuffer) =>
  new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
