import type { AppContext } from "../../context.ts";
import type { Artifact } from "../../db/schema/index.ts";
import { AppError, Forbidden, NotFound } from "../../errors.ts";
import {
  alreadyHeld,
  bucketCanAnswerRange,
  contentDisposition,
  fileResponse,
} from "../../http/file-response.ts";
import { mediaTypeOrDefault } from "../../http/media-type.ts";
import { requestState } from "../../http/request-state.ts";
import { headerBearer, sessionActor } from "../auth/guards.ts";
import { peopleFile, type VersionRow } from "../versions/rows.ts";
import { type DownloadCredentials, downloadableVersion } from "./access.ts";

/** What a download route's handler hands on: the request, its bearer token, the response's headers. */
export interface DownloadRequest {
  request: Request;
  bearer: string | undefined;
  set: { headers: Record<string, string | number> };
}

/**
 * A download route's answer (there is no `auth` macro: a signed URL or a license key may stand in for a
 * token): the request's credentials weighed by serveDownload, and the user it was served to named in the
 * request log. The dashboard's session cookie counts as a token does (its links are plain `<a>`s). The
 * update feeds' file URLs add the license of `Authorization: License <key>` and open a free product's files.
 */
export async function answerDownload(
  ctx: AppContext,
  { request, bearer, set }: DownloadRequest,
  ids: Parameters<typeof serveDownload>[2],
  feed: { licenseKey: string | null; openWhenFree: true } | null = null,
): Promise<Response> {
  const { response, userId } = await serveDownload(ctx, request, ids, {
    url: requestState(request).url,
    bearer: headerBearer(request, bearer),
    licenseKey: feed?.licenseKey ?? request.headers.get("x-license-key"),
    // An Authorization header, even one that is not Bearer, decides on its own (features/auth/guards.ts).
    session: async () => (request.headers.has("authorization") ? null : sessionActor(ctx, request, set)),
    openWhenFree: feed?.openWhenFree,
  });
  if (userId !== null) requestState(request).who.user_id = userId;
  return response;
}

/**
 * A GET or HEAD of a version's file (its first artifact, or the one `ids.artifact` names, or with
 * `ids.blockmap` that artifact's blockmap, as electron-updater fetches it), decided in
 * full: who may (access.ts), whether the file is still stored (410), whether the bucket serves it
 * (a presigned redirect) or depot streams it, and what counts as a download. Returns the response and
 * the user it was served to, if one is known. The update feeds' file URLs name the version and the
 * file instead of ids; there `X.blockmap` is the blockmap kept with the artifact `X`.
 */
export async function serveDownload(
  ctx: AppContext,
  request: Request,
  ids: {
    product: number;
    version: number | { name: string };
    artifact?: number | { name: string };
    blockmap?: boolean;
  },
  credentials: DownloadCredentials,
): Promise<{ response: Response; userId: number | null }> {
  // Before anything is looked up: an embedded download is refused whoever it would act for.
  refuseSubresource(request);
  const { product, row, userId } = await downloadableVersion(ctx, ids.product, ids.version, credentials);
  const { artifact, blockmap } = servedArtifact(row, ids);
  const file = blockmap ? blockmapOf(artifact) : artifact;
  const stored = await ctx.releases.size(file.storageKey);
  if (stored !== file.fileSize) {
    // A version exists only once its file is stored: this one was removed, or STORAGE_DIR is not shared.
    ctx.log.error("release file missing", {
      version_id: row.version.id,
      artifact_id: file.id,
      store: ctx.releases.kind,
      storage_key: file.storageKey,
      expected_size: file.fileSize,
      found_size: stored,
    });
    throw new AppError(410, "The release file is missing.");
  }
  const isGet = request.method === "GET";
  // Told if the version is ever yanked: any GET of its files by a known user (a range included).
  if (userId !== null && isGet) ctx.downloads.addDownloader(row.version.id, userId);
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
    if (!request.headers.has("range") && !blockmap) countDownload(ctx, product.id, row.version, file);
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
  // A blockmap is what an updater reads before a download, not one.
  if (counts && isGet && !blockmap) countDownload(ctx, product.id, row.version, file);
  if (isGet) ctx.metrics?.download(response);
  return { response, userId };
}

const BLOCKMAP = ".blockmap";

/**
 * The artifact `ids` names (none: the file for people, versions/rows.ts `peopleFile`) and whether its blockmap is asked for: by id
 * with `blockmap`, or by name, where `X.blockmap` names the blockmap of the artifact `X` unless an
 * artifact has that very name.
 */
function servedArtifact(
  row: VersionRow,
  ids: { artifact?: number | { name: string }; blockmap?: boolean },
): { artifact: Artifact; blockmap: boolean } {
  const wanted = ids.artifact;
  if (wanted === undefined || typeof wanted === "number") {
    const artifact =
      wanted === undefined ? peopleFile(row) : row.artifacts.find((candidate) => candidate.id === wanted);
    if (!artifact) throw new NotFound("Artifact");
    return { artifact, blockmap: ids.blockmap ?? false };
  }
  const named = row.artifacts.find((candidate) => candidate.fileName === wanted.name);
  if (named) return { artifact: named, blockmap: false };
  const of = wanted.name.endsWith(BLOCKMAP) ? wanted.name.slice(0, -BLOCKMAP.length) : null;
  const artifact = row.artifacts.find((candidate) => candidate.fileName === of);
  if (!artifact?.blockmapStorageKey) throw new NotFound("File");
  return { artifact, blockmap: true };
}

/** An artifact's blockmap as a file to serve (`X.blockmap`); 404 when it has none. */
function blockmapOf(artifact: Artifact) {
  const { blockmapStorageKey, blockmapSize, blockmapSha256 } = artifact;
  if (blockmapStorageKey === null || blockmapSize === null || blockmapSha256 === null)
    throw new NotFound("Blockmap");
  return {
    id: artifact.id,
    storageKey: blockmapStorageKey,
    fileSize: blockmapSize,
    sha256: blockmapSha256,
    fileName: `${artifact.fileName}.blockmap`,
    contentType: "application/octet-stream",
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

/** A download: the version's and product's totals, and the day's count by version and file (usage_days). */
function countDownload(
  ctx: Pick<AppContext, "downloads" | "usage">,
  productId: number,
  version: { id: number; versionNumber: string },
  file: { fileName: string },
) {
  ctx.downloads.add(productId, version.id);
  ctx.usage.add({ productId, series: "downloads", version: version.versionNumber, detail: file.fileName });
}
