import { type DepotClient, REQUEST_TIMEOUT_MS } from "./depot-client.ts";
import { Refused } from "./failures.ts";
import { fileNameOf, sha256OfReprDigest } from "./file-headers.ts";

/** What a HEAD of the download says about the file, before a byte of it is written. */
export interface RemoteFile {
  size: number;
  /** The strong ETag, sent back as If-Range when resuming. */
  etag: string | null;
  /** From Repr-Digest (hex). */
  sha256: string | null;
  /** From Content-Disposition, already reduced to a plain file name. */
  fileName: string | null;
}

/** HEAD of the download (retried like any request): not counted as a download, and no bytes yet. */
export async function remoteFile(client: DepotClient, path: string): Promise<RemoteFile> {
  const response = await client.request(path, { method: "HEAD" }).catch(async (error) => {
    // A refused HEAD has no body to say why: ask for one byte to hear the message (not retried).
    if (!(error instanceof Refused)) throw error;
    const signal = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
    throw await client.send(path, { headers: { range: "bytes=0-0" }, signal }).then(
      async (answered) => {
        await answered.body?.cancel();
        return error;
      },
      (answer) => (answer instanceof Refused ? answer : error),
    );
  });
  const size = Number(response.headers.get("content-length") ?? Number.NaN);
  if (!Number.isSafeInteger(size) || size < 0) {
    throw new Refused(`${client.url(path)} did not say how large the file is (no Content-Length)`);
  }
  return {
    size,
    etag: response.headers.get("etag"),
    sha256: sha256OfReprDigest(response.headers.get("repr-digest")),
    fileName: fileNameOf(response.headers.get("content-disposition")),
  };
}
