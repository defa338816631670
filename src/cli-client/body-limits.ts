/**
 * How much of an answer the client holds in memory. What answers may not be depot (a wrong URL, a
 * proxy's page, a server gone wrong), and a 1.2 GB `versions/latest` once took 1.34 GB of memory;
 * every body read whole is read through `readAtMost` with one of these bounds.
 */

const KiB = 1024;
const MiB = 1024 * KiB;

/**
 * One JSON answer (a version, an upload): the largest version depot can send has a changelog of
 * 1,000,000 characters, at most 6 MB once escaped as JSON, and a few short fields.
 */
export const MAX_JSON_BYTES = 8 * MiB;

/**
 * A page of the version list (100 versions): room for changelogs of ~600 KiB each on average,
 * far beyond real ones, while the memory it takes stays small.
 */
export const MAX_PAGE_BYTES = 64 * MiB;

/** An error answer: depot's is a message and a few field errors; more is a proxy's page, named by its status. */
export const MAX_ERROR_BYTES = 64 * KiB;

/**
 * The body's bytes, or null when it has more than `maxBytes`: then reading stops there (an announced
 * Content-Length that is too large stops it before the first byte) and the rest is cancelled.
 */
export async function readAtMost(response: Response, maxBytes: number): Promise<Uint8Array | null> {
  const announced = Number(response.headers.get("content-length"));
  if (announced > maxBytes || !response.body) {
    await response.body?.cancel();
    return announced > maxBytes ? null : new Uint8Array(0);
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return Buffer.concat(chunks, size);
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
}

/** `8 MiB`, `64 KiB`: a bound as a message says it. */
export const sizeOf = (bytes: number) =>
  bytes >= MiB ? `${bytes / MiB} MiB` : bytes >= KiB ? `${bytes / KiB} KiB` : `${bytes} bytes`;
