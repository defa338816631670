import type { AppContext } from "../../context.ts";
import type { Artifact } from "../../db/schema/index.ts";
import { AppError, Forbidden, NotFound } from "../../errors.ts";
import { mediaTypeOrDefault } from "../../http/media-type.ts";
import { type DownloadCredentials, downloadableVersion } from "./download.ts";
import { alreadyHeld, bucketCanAnswerRange, contentDisposition, fileResponse } from "./file-response.ts";
import { firstArtifact, type VersionRow } from "./service.ts";

/**
 * A GET or HEAD of a version's file (its first artifact, or the one `ids.artifact` names), decided in
 * full: who may (download.ts), whether the file is still stored (410), whether the bucket serves it
 * (a presigned redirect) or depot streams it, and what counts as a download. Returns the response and
 * the user it was served to, if one is known. The update feeds' file URLs name the version and the
 * file instead of ids; there `X.blockmap` is the blockmap kept with the artifact `X`.
 */
export async function serveDownload(
  ctx: AppContext,
  request: Request,
  ids: { product: number; version: number | { name: string }; artifact?: number | { name: string } },
  credentials: DownloadCredentials,
): Promise<{ response: Response; userId: number | null }> {
  // Before anything is looked up: an embedded download is refused whoever it would act for.
  refuseSubresource(request);
  const { product, row, userId } = await downloadableVersion(ctx, ids.product, ids.version, credentials);
  const { artifact, file } = servedFile(row, ids.artifact);
  // Told if the version is ever yanked; only a GET of the bytes counts, as below.
  if (userId !== null && request.method === "GET" && file.isDownload) {
    ctx.downloads.addDownloader(row.version.id, userId);
  }
  const stored = await ctx.releases.size(file.storageKey);
  if (stored !== file.fileSize) {
    // A version exists only once its file is stored: this one was removed, or STORAGE_DIR is not shared.
    ctx.log.error("release file missing", {
      version_id: row.version.id,
      artifact_id: artifact.id,
      store: ctx.releases.kind,
      storage_key: file.storageKey,
      expected_size: file.fileSize,
      found_size: stored,
    });
    throw new AppError(410, "The release file is missing.");
  }
  const isGet = request.method === "GET";
  const contentType = mediaTypeOrDefault(file.contentType);
  // A HEAD is answered here, not redirected: a presigned URL is signed for GET only, and depot knows
  // every header without the bytes. A client that already holds the file is answered here too (304):
  // the bucket's ETag differs from ours, so the bucket would send the whole file again. So is a request
  // for several ranges, which a bucket would answer with the whole file.
  const location =
    ctx.config.storageDownloads === "redirect" &&
    isGet &&
    !alreadyHeld(request, file.sha256) &&
    bucketCanAnswerRange(request, file.fileSize)
      ? ctx.releases.presignedUrl(file.storageKey, {
          contentType,
          contentDisposition: contentDisposition(file.fileName),
        })
      : null;
  if (location !== null) {
    // The bucket serves the bytes (and Range); only a request for the whole file counts.
    if (!request.headers.has("range") && file.isDownload) ctx.downloads.add(product.id, row.version.id);
    const response = new Response(null, { status: 302, headers: { location, "cache-control": "no-store" } });
    ctx.metrics?.download(response);
    return { response, userId };
  }
  const { response, counts } = fileResponse(request, {
    body: (range, options) => ctx.releases.body(file.storageKey, range, options),
    size: file.fileSize,
    sha256: file.sha256,
    fileName: file.fileName,
    contentType,
  });
  if (counts && isGet && file.isDownload) ctx.downloads.add(product.id, row.version.id);
  if (isGet) ctx.metrics?.download(response);
  return { response, userId };
}

/** The bytes a download serves: an artifact's file, or the blockmap kept with it. */
interface ServedFile {
  storageKey: string;
  fileSize: number;
  sha256: string;
  fileName: string;
  contentType: string;
  /** A blockmap is read by updaters on the way to a download; fetching it is no download. */
  isDownload: boolean;
}

const BLOCKMAP = ".blockmap";

/** The file `wanted` names in the version (none: its first artifact); 404 when it names none. */
function servedFile(
  row: VersionRow,
  wanted: number | { name: string } | undefined,
): { artifact: Artifact; file: ServedFile } {
  if (wanted === undefined || typeof wanted === "number") {
    const artifact =
      wanted === undefined ? firstArtifact(row) : row.artifacts.find((candidate) => candidate.id === wanted);
    if (!artifact) throw new NotFound("Artifact");
    return { artifact, file: { ...artifact, isDownload: true } };
  }
  const named = row.artifacts.find((candidate) => candidate.fileName === wanted.name);
  if (named) return { artifact: named, file: { ...named, isDownload: true } };
  const of = wanted.name.endsWith(BLOCKMAP) ? wanted.name.slice(0, -BLOCKMAP.length) : null;
  const artifact = row.artifacts.find((candidate) => candidate.fileName === of);
  if (!artifact?.blockmapStorageKey || artifact.blockmapSize === null || artifact.blockmapSha256 === null) {
    throw new NotFound("File");
  }
  return {
    artifact,
    file: {
      storageKey: artifact.blockmapStorageKey,
      fileSize: artifact.blockmapSize,
      sha256: artifact.blockmapSha256,
      fileName: wanted.name,
      contentType: "application/octet-stream",
      isDownload: false,
    },
  };
}

/**
 * What a download may arrive as (the browser's `Sec-Fetch-Dest`): a navigation or a click on a
 * Download link (`document`), or a script's fetch (`empty`, the dashboard's own requests).
 */
const DOWNLOAD_DESTINATIONS = new Set(["document", "empty"]);

/**
 * Refuses a download the browser fetches as part of a page: an `<img>`, `<script>`, `<link>` or
 * `<iframe>` anywhere, a changelog included, would otherwise download with the reader's session
 * cookie and count as a download. Every other destination (`image`, `script`, `style`, `iframe`,
 * `video`, …) is refused, unknown ones too. Without the header (curl, the CLI, other servers, older
 * browsers) nothing is refused: it only ever narrows what a browser does on a reader's behalf.
 */
function refuseSubresource(request: Request): void {
  const destination = request.headers.get("sec-fetch-dest");
  if (destination === null || DOWNLOAD_DESTINATIONS.has(destination.trim().toLowerCase())) return;
  throw new Forbidden("A release file is only downloaded, never loaded as part of a page.");
}
