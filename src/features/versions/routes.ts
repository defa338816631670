import type { TSchema } from "@sinclair/typebox";
import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { forms, input } from "../../http/forms.ts";
import { simplePage } from "../../http/pagination.ts";
import { requestState } from "../../http/request-state.ts";
import { dataOf, refusals } from "../../http/schemas.ts";
import { pageRequest } from "../../pagination.ts";
import { newStorageKey } from "../../storage/storage.ts";
import { IdParam } from "../../validation/ids.ts";
import type { Actor } from "../auth/actor.ts";
import { bearerAuth, headerBearer, sessionActor } from "../auth/guards.ts";
import { toVersionJson } from "./json.ts";
import { changeRelease, ReleaseChangeForm } from "./release.ts";
import {
  LatestQuery,
  PublishFromUploadDoc,
  PublishJsonDoc,
  PublishMultipartDoc,
  VersionJson,
  VersionListQuery,
  VersionPageJson,
} from "./schemas.ts";
import { serveDownload } from "./serve-download.ts";
import {
  deleteVersion,
  firstArtifact,
  latestVersion,
  listVersions,
  publishTarget,
  publishVersion,
  readVersion,
} from "./service.ts";
import { readUpload } from "./upload.ts";

/** A TypeBox schema as the plain JSON Schema object an OpenAPI document holds. */
const plainSchema = (schema: TSchema) => JSON.parse(JSON.stringify(schema));

const tags = ["Versions"];
const publishResponses = {
  200: dataOf(VersionJson),
  201: dataOf(VersionJson),
  ...refusals(400, 404, 413, 415, 422, 503, 507),
};
const publishDoc = {
  tags,
  description:
    "multipart/form-data (the file streams to the release store), or application/json with " +
    '`"file": {"filename", "content": "<base64 or data: URI>", "content_type"?}` or with ' +
    '`"upload_id"`, a finished resumable upload. ' +
    "201 with the new version; 200 with the existing one for an identical re-post (same name, same file).",
  requestBody: {
    content: {
      "multipart/form-data": { schema: plainSchema(PublishMultipartDoc) },
      "application/json": { schema: plainSchema(t.Union([PublishJsonDoc, PublishFromUploadDoc])) },
    },
  },
};

const ProductParams = t.Object({ product: IdParam("Product") });
const BenefitParams = t.Object({ product: IdParam("Product"), benefit: IdParam("Benefit") });
const VersionParams = t.Object({ product: IdParam("Product"), version: IdParam("Version") });
const ArtifactParams = t.Object({
  product: IdParam("Product"),
  version: IdParam("Version"),
  artifact: IdParam("Artifact"),
});
const DOWNLOAD = "/api/products/:product/versions/:version/download";
const ARTIFACT_DOWNLOAD = "/api/products/:product/versions/:version/artifacts/:artifact/download";
const downloadDoc = {
  tags,
  summary: "Download a version's file",
  description:
    "Bearer token or the dashboard's session cookie (owner, admin or holder), `X-License-Key`, " +
    "or a signed URL (`user`, `expires`, `signature`: it downloads while that user may). " +
    "Strong ETag, If-None-Match → 304, If-Range, Repr-Digest. One byte range → 206 with Content-Range; " +
    "several (up to 1,000) → 206 multipart/byteranges, overlapping or unsorted ones merged; a malformed " +
    "byte range, more than 1,000, or none within the file → 416 JSON with `Content-Range: bytes */size`. " +
    "With object storage and STORAGE_DOWNLOADS=redirect: 302 to a presigned URL valid for 5 minutes. " +
    "A browser's request for it as part of a page (`Sec-Fetch-Dest` other than `document` or `empty`): 403.",
};

/** Publishing and the versions API. */
export const versionRoutes = (ctx: AppContext) => {
  const json = (row: Parameters<typeof toVersionJson>[0]) => toVersionJson(row, ctx.config.appUrl);

  /** Both publish routes: the target is checked before a byte of the body is read. */
  const publish = async (
    { actor, request, set }: { actor: Actor; request: Request; set: { status?: number | string } },
    productId: number,
    benefitId: number | null,
  ) => {
    const target = await publishTarget(ctx, actor, productId, benefitId);
    const upload = await readUpload(request, ctx.releases, ctx.config, newStorageKey(target.product.id));
    const { row, created } = await publishVersion(ctx, actor, target, upload);
    if (created) ctx.metrics?.upload(firstArtifact(row).fileSize);
    set.status = created ? 201 : 200;
    return { data: json(row) };
  };

  /**
   * GET and HEAD of a version's file; no `auth` macro, since a signed URL or a license key may stand in
   * for a token. The dashboard's session cookie counts as a token does (its links are plain `<a>`s).
   */
  const download = async ({ params, request, bearer, set }: DownloadContext) => {
    const { response, userId } = await serveDownload(ctx, request, params, {
      url: requestState(request).url,
      bearer: headerBearer(request, bearer),
      licenseKey: request.headers.get("x-license-key"),
      // An Authorization header, even one that is not Bearer, decides on its own (features/auth/guards.ts).
      session: async () => (request.headers.has("authorization") ? null : sessionActor(ctx, request, set)),
    });
    if (userId !== null) requestState(request).who.user_id = userId;
    return response;
  };

  return new Elysia()
    .use(bearerAuth(ctx))
    .use(forms(ctx))
    .get(DOWNLOAD, download, {
      params: VersionParams,
      response: refusals(401, 403, 404, 410),
      detail: downloadDoc,
    })
    .head(DOWNLOAD, download, {
      params: VersionParams,
      response: refusals(401, 403, 404, 410),
      detail: { ...downloadDoc, summary: "A version's file headers" },
    })
    .get(ARTIFACT_DOWNLOAD, download, {
      params: ArtifactParams,
      response: refusals(401, 403, 404, 410),
      detail: { ...downloadDoc, summary: "Download one file (artifact) of a version" },
    })
    .head(ARTIFACT_DOWNLOAD, download, {
      params: ArtifactParams,
      response: refusals(401, 403, 404, 410),
      detail: { ...downloadDoc, summary: "One file (artifact) of a version: its headers" },
    })
    .post("/api/products/:product/versions", (c) => publish(c, c.params.product, null), {
      auth: true,
      params: ProductParams,
      response: publishResponses,
      detail: { summary: "Publish a version of a product", ...publishDoc },
    })
    .post(
      "/api/products/:product/benefits/:benefit/versions",
      (c) => publish(c, c.params.product, c.params.benefit),
      {
        auth: true,
        params: BenefitParams,
        response: publishResponses,
        detail: { summary: "Publish a version of one benefit of a product", ...publishDoc },
      },
    )
    .get(
      "/api/products/:product/versions",
      async ({ params, query, actor, request }) => {
        const page = pageRequest(query);
        return simplePage((await listVersions(ctx, actor, params.product, page)).map(json), page, request);
      },
      {
        auth: true,
        params: ProductParams,
        query: VersionListQuery,
        response: { 200: VersionPageJson, ...refusals(404, 422) },
        detail: { summary: "List a product's versions, newest first", tags },
      },
    )
    .get(
      "/api/products/:product/versions/latest",
      async ({ params, query, actor }) => ({
        data: json(await latestVersion(ctx, actor, params.product, query.benefit ?? null)),
      }),
      {
        auth: true,
        params: ProductParams,
        query: LatestQuery,
        response: { 200: dataOf(VersionJson), ...refusals(404, 422) },
        detail: { summary: "The newest version of the product, or of one benefit (?benefit=ID)", tags },
      },
    )
    .get(
      "/api/products/:product/versions/:version",
      async ({ params, actor }) => ({
        data: json(await readVersion(ctx, actor, params.product, params.version)),
      }),
      {
        auth: true,
        params: VersionParams,
        response: { 200: dataOf(VersionJson), ...refusals(404) },
        detail: { summary: "Read a version", tags },
      },
    )
    .patch(
      "/api/products/:product/versions/:version",
      async ({ params, actor, body }) => ({ data: json(await changeRelease(ctx, actor, params, body)) }),
      {
        auth: true,
        params: VersionParams,
        ...input(ReleaseChangeForm),
        response: { 200: dataOf(VersionJson), ...refusals(404, 422) },
        detail: {
          summary: "Release a draft, yank or un-yank a version, set its channel, rollout or critical flag",
          description:
            "`status`: draft → published (holders are notified then), published → yanked (with " +
            "`yank_reason`; holders who downloaded it are told), yanked → published. " +
            "`rollout_percentage` 0–100: the share of update clients offered it (setting it alone " +
            "replaces the schedule); `rollout_schedule` [{at, percentage}]: steps that raise it over time.",
          tags,
        },
      },
    )
    .delete(
      "/api/products/:product/versions/:version",
      async ({ params, actor, set }) => {
        await deleteVersion(ctx, actor, params.product, params.version);
        set.status = 204;
      },
      {
        auth: true,
        params: VersionParams,
        response: refusals(404),
        detail: { summary: "Delete a version and its file (publishers of the product)", tags },
      },
    );
};

interface DownloadContext {
  params: { product: number; version: number; artifact?: number };
  request: Request;
  bearer: string | undefined;
  set: { headers: Record<string, string | number> };
}
