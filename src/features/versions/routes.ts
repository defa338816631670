import type { TSchema } from "@sinclair/typebox";
import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { forms, input } from "../../http/forms.ts";
import { pageOf } from "../../http/pagination.ts";
import { answers, dataOf, noContent } from "../../http/schemas.ts";
import { IdParam } from "../../validation/ids.ts";
import type { Actor } from "../auth/actor.ts";
import { bearerAuth } from "../auth/guards.ts";
import { answerDownload, type DownloadRequest } from "../downloads/serve.ts";
import {
  PublishedVersionJson,
  toPublishedVersionData,
  toVersionData,
  toVersionJson,
  VersionJson,
  VersionPageJson,
} from "./json.ts";
import { changeRelease, ReleaseChangeForm } from "./release.ts";
import { LatestQuery, PublishRequestBody, VersionListQuery } from "./schemas.ts";
import { deleteVersion, latestVersion, listVersions, publishFrom, readVersion } from "./service.ts";

const ProductParams = t.Object({ product: IdParam("Product") });
const BenefitParams = t.Object({ product: IdParam("Product"), benefit: IdParam("Benefit") });
const VersionParams = t.Object({ product: IdParam("Product"), version: IdParam("Version") });
const ArtifactParams = t.Object({
  product: IdParam("Product"),
  version: IdParam("Version"),
  artifact: IdParam("Artifact"),
});

/** An operation of the versions API: a signed-in caller, and a 404 for a product or version not there. */
const versionApi = <R extends Parameters<typeof answers>[1], S extends 422 = never>(
  detail: Parameters<typeof answers>[0],
  success: R,
  ...statuses: S[]
) => ({ auth: true as const, ...answers<R, 404 | S>(detail, success, 404, ...statuses) });

/** For the document only: the publish routes read their body themselves (it streams). */
const PUBLISH_DOC = {
  description:
    "multipart/form-data (the file streams to the release store), or application/json with " +
    '`"file": {"filename", "content": "<base64 or data: URI>", "content_type"?}` or with ' +
    '`"upload_id"`, a finished resumable upload. ' +
    "201 with the new version; 200 with the existing one for an identical re-post (same name, same file). " +
    "`warnings.version_name` when the name is not semver: the version is kept, but no update feed offers it.",
  requestBody: PublishRequestBody,
};
const aVersion = { 200: dataOf(VersionJson) };
const published = { 200: PublishedVersionJson, 201: PublishedVersionJson };
const publishing = <P extends TSchema>(params: P, summary: string) => ({
  auth: true as const,
  params,
  ...answers({ summary, ...PUBLISH_DOC }, published, 400, 404, 413, 415, 422, 503, 507),
});

const DOWNLOAD_DOC = {
  description:
    "Bearer token or the dashboard's session cookie (owner, admin or holder), `X-License-Key`, " +
    "or a signed URL (`user`, `expires`, `signature`: it downloads while that user may). " +
    "Strong ETag, If-None-Match → 304, If-Range, Repr-Digest. One byte range → 206 with Content-Range; " +
    "several (up to 1,000) → 206 multipart/byteranges, overlapping or unsorted ones merged; a malformed " +
    "byte range, more than 1,000, or none within the file → 416 JSON with `Content-Range: bytes */size`. " +
    "With object storage and STORAGE_DOWNLOADS=redirect: 302 to a presigned URL valid for 5 minutes. " +
    "A browser's request for it as part of a page (`Sec-Fetch-Dest` other than `document` or `empty`): 403.",
};
/** The four download routes (GET and HEAD, of a version's file or of one artifact), in the document. */
const served = <P extends TSchema>(params: P, summary: string) => ({
  params,
  ...answers({ summary, ...DOWNLOAD_DOC }, {}, 401, 403, 404, 410),
});
const DOWNLOAD = "/versions/:version/download";
const ARTIFACT_FILE = "/versions/:version/artifacts/:artifact/download";

/** Publishing and the versions API, at /api/products/{product}/…. */
export const versionRoutes = (ctx: AppContext) => {
  const data = toVersionData(ctx.config.appUrl);
  const publishedData = toPublishedVersionData(ctx.config.appUrl);

  /** 201 with the new version; 200 with the existing one an identical re-post names. */
  const publish = async ({ params, actor, request, set }: PublishRequest) => {
    const { row, created } = await publishFrom(ctx, actor, request, params);
    set.status = created ? 201 : 200;
    return publishedData(row);
  };

  /** GET and HEAD of a version's file, or of one of its files (features/downloads/serve.ts). */
  const download = ({ params, request, bearer, set }: DownloadRequest & { params: DownloadIds }) =>
    answerDownload(ctx, { request, bearer, set }, params);

  return new Elysia({ prefix: "/api/products/:product", tags: ["Versions"] })
    .use(bearerAuth(ctx))
    .use(forms(ctx))
    .get(DOWNLOAD, download, served(VersionParams, "Download a version's file"))
    .head(DOWNLOAD, download, served(VersionParams, "A version's file headers"))
    .get(ARTIFACT_FILE, download, served(ArtifactParams, "Download one file (artifact) of a version"))
    .head(ARTIFACT_FILE, download, served(ArtifactParams, "One file (artifact) of a version: its headers"))
    .post("/versions", publish, publishing(ProductParams, "Publish a version of a product"))
    .post(
      "/benefits/:benefit/versions",
      publish,
      publishing(BenefitParams, "Publish a version of one benefit of a product"),
    )
    .get(
      "/versions",
      ({ params, query, actor, request }) =>
        pageOf(
          query,
          request,
          (page) => listVersions(ctx, actor, params.product, page),
          (row) => toVersionJson(row, ctx.config.appUrl),
        ),
      {
        ...versionApi("List a product's versions, newest first", { 200: VersionPageJson }, 422),
        params: ProductParams,
        query: VersionListQuery,
      },
    )
    .get(
      "/versions/latest",
      ({ params, query, actor }) => data(latestVersion(ctx, actor, params.product, query.benefit)),
      {
        ...versionApi("The newest version of the product, or of one benefit (?benefit=ID)", aVersion, 422),
        params: ProductParams,
        query: LatestQuery,
      },
    )
    .get("/versions/:version", ({ params, actor }) => data(readVersion(ctx, actor, params)), {
      ...versionApi("Read a version", aVersion),
      params: VersionParams,
    })
    .patch("/versions/:version", ({ params, actor, body }) => data(changeRelease(ctx, actor, params, body)), {
      ...versionApi(
        {
          summary: "Release a draft, yank or un-yank a version, set its channel, rollout or critical flag",
          description:
            "`status`: draft → published (holders are notified then), published → yanked (with " +
            "`yank_reason`; holders who downloaded it are told), yanked → published. " +
            "`rollout_percentage` 0–100: the share of update clients offered it (setting it alone " +
            "replaces the schedule); `rollout_schedule` [{at, percentage}]: steps that raise it over time.",
        },
        aVersion,
        422,
      ),
      params: VersionParams,
      ...input(ReleaseChangeForm),
    })
    .delete("/versions/:version", ({ params, actor }) => noContent(deleteVersion(ctx, actor, params)), {
      ...versionApi("Delete a version and its file (publishers of the product)", {}),
      params: VersionParams,
    });
};

type DownloadIds = { product: number; version: number; artifact?: number };
interface PublishRequest {
  params: { product: number; benefit?: number };
  actor: Actor;
  request: Request;
  set: { status?: number | string };
}
