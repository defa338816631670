import type { AppContext } from "../../context.ts";
import { AppError } from "../../errors.ts";
import { mediaTypeOrDefault } from "../../http/media-type.ts";
import { type DownloadCredentials, downloadableVersion } from "./download.ts";
import { refuseSubresource } from "./fetch-destination.ts";
import { alreadyHeld, contentDisposition, fileResponse } from "./file-response.ts";

/**
 * A GET or HEAD of a version's file, decided in full: who may (download.ts), whether the file is
 * still stored (410), whether the bucket serves it (a presigned redirect) or depot streams it, and
 * what counts as a download. Returns the response and the user it was served to, if one is known.
 */
export async function serveDownload(
  ctx: AppContext,
  request: Request,
  ids: { product: number; version: number },
  credentials: DownloadCredentials,
): Promise<{ response: Response; userId: number | null }> {
  // Before anything is looked up: an embedded download is refused whoever it would act for.
  refuseSubresource(request);
  const { product, row, userId } = await downloadableVersion(ctx, ids.product, ids.version, credentials);
  const { version } = row;
  const stored = await ctx.releases.size(version.storageKey);
  if (stored !== version.fileSize) {
    // A version exists only once its file is stored: this one was removed, or STORAGE_DIR is not shared.
    ctx.log.error("release file missing", {
      version_id: version.id,
      store: ctx.releases.kind,
      storage_key: version.storageKey,
      expected_size: version.fileSize,
      found_size: stored,
    });
    throw new AppError(410, "The release file is missing.");
  }
  const isGet = request.method === "GET";
  const contentType = mediaTypeOrDefault(version.contentType);
  // HEAD stays here: a presigned URL is signed for GET, and depot knows every header without the bytes.
  // So does a client that already holds the file: the bucket's ETag is not ours, it would send it again.
  const location =
    ctx.config.storageDownloads === "redirect" && isGet && !alreadyHeld(request, version.sha256)
      ? ctx.releases.presignedUrl(version.storageKey, {
          contentType,
          contentDisposition: contentDisposition(version.fileName),
        })
      : null;
  if (location !== null) {
    // The bucket serves the bytes (and Range); only a request for the whole file counts.
    if (!request.headers.has("range")) ctx.downloads.add(product.id, version.id);
    const response = new Response(null, { status: 302, headers: { location, "cache-control": "no-store" } });
    ctx.metrics?.download(response);
    return { response, userId };
  }
  const { response, counts } = fileResponse(request, {
    body: (range, options) => ctx.releases.body(version.storageKey, range, options),
    size: version.fileSize,
    sha256: version.sha256,
    fileName: version.fileName,
    contentType,
  });
  if (counts && isGet) ctx.downloads.add(product.id, version.id);
  if (isGet) ctx.metrics?.download(response);
  return { response, userId };
}
