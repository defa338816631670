import type { TSchema } from "@sinclair/typebox";
import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { AppError, Invalid } from "../../errors.ts";
import { bearerAuth, headerBearer, sessionActor } from "../../http/auth.ts";
import { mediaTypeOrDefault } from "../../http/media-type.ts";
import { simplePage } from "../../http/pagination.ts";
import { requestState } from "../../http/request-state.ts";
import { dataOf, MessageJson, ValidationJson } from "../../http/schemas.ts";
import { pageRequest } from "../../pagination.ts";
import { newStorageKey } from "../../storage/storage.ts";
import { pathId, toId } from "../../validation/ids.ts";
import type { Actor } from "../auth/actor.ts";
import { downloadableVersion } from "./download.ts";
import { refuseSubresource } from "./fetch-destination.ts";
import { alreadyHeld, contentDisposition, fileResponse } from "./file-response.ts";
import {
  LatestQuery,
  PublishFromUploadDoc,
  PublishJsonDoc,
  PublishMultipartDoc,
  VersionJson,
  VersionListQuery,
  VersionPageJson,
} from "./schemas.ts";
import {
  deleteVersion,
  latestVersion,
  listVersions,
  publishTarget,
  publishVersion,
  readVersion,
  toVersionJson,
} from "./service.ts";
import { readUpload } from "./upload.ts";

/** A TypeBox schema as the plain JSON Schema object an OpenAPI document holds. */
const plainSchema = (schema: TSchema) => JSON.parse(JSON.stringify(schema));

const tags = ["Versions"];
const publishResponses = {
  200: dataOf(VersionJson),
  201: dataOf(VersionJson),
  400: MessageJson,
  401: MessageJson,
  403: MessageJson,
  404: MessageJson,
  413: MessageJson,
  415: MessageJson,
  422: ValidationJson,
  503: MessageJson,
  507: MessageJson,
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

/** Publishing and the versions API. */
export const versionRoutes = (ctx: AppContext) => {
  const json = (row: Parameters<typeof toVersionJson>[0]) => toVersionJson(row, ctx.config.appUrl);

  /** Both publish routes: the target is checked before a byte of the body is read. */
  const publish = async (actor: Actor, request: Request, productId: number, benefitId: number | null) => {
    const target = await publishTarget(ctx, actor, productId, benefitId);
    const upload = await readUpload(request, ctx.releases, ctx.config, newStorageKey(target.product.id));
    const { row, created } = await publishVersion(ctx, actor, target, upload);
    if (created) ctx.metrics?.upload(row.version.fileSize);
    return { status: created ? 201 : 200, body: { data: json(row) } };
  };

  /**
   * GET and HEAD of a version's file; no `auth` macro, since a signed URL or a license key may stand in
   * for a token. The dashboard's session cookie counts as a token does (its links are plain `<a>`s).
   */
  const download = async (
    params: { product: string; version: string },
    request: Request,
    bearer: string | undefined,
    set: { headers: Record<string, string | number> },
  ) => {
    // Before anything is looked up: an embedded download is refused whoever it would act for.
    refuseSubresource(request);
    const { product, row, userId } = await downloadableVersion(
      ctx,
      pathId(params.product, "Product"),
      pathId(params.version, "Version"),
      {
        url: requestState(request).url,
        bearer: headerBearer(request, bearer),
        licenseKey: request.headers.get("x-license-key"),
        // An Authorization header, even one that is not Bearer, decides on its own (http/auth.ts).
        session: async () => (request.headers.has("authorization") ? null : sessionActor(ctx, request, set)),
      },
    );
    if (userId !== null) requestState(request).downloadUserId = userId;
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
    const contentType = mediaTypeOrDefault(version.contentType);
    // HEAD stays here: a presigned URL is signed for GET, and depot knows every header without the bytes.
    // So does a client that already holds the file: the bucket's ETag is not ours, it would send it again.
    const presigned =
      ctx.config.storageDownloads === "redirect" &&
      request.method === "GET" &&
      !alreadyHeld(request, version.sha256)
        ? ctx.releases.presignedUrl(version.storageKey, {
            contentType,
            contentDisposition: contentDisposition(version.fileName),
          })
        : null;
    if (presigned !== null) {
      // The bucket serves the bytes (and Range); only a request for the whole file counts.
      if (!request.headers.has("range")) ctx.downloads.add(product.id, version.id);
      const response = new Response(null, {
        status: 302,
        headers: { location: presigned, "cache-control": "no-store" },
      });
      ctx.metrics?.download(response);
      return response;
    }
    const { response, counts } = fileResponse(request, {
      body: (range, options) => ctx.releases.body(version.storageKey, range, options),
      size: version.fileSize,
      sha256: version.sha256,
      fileName: version.fileName,
      contentType,
    });
    if (counts && request.method === "GET") ctx.downloads.add(product.id, version.id);
    if (request.method === "GET") ctx.metrics?.download(response);
    return response;
  };
  const downloadDoc = {
    tags,
    summary: "Download a version's file",
    description:
      "Bearer token or the dashboard's session cookie (owner, admin or holder), `X-License-Key`, " +
      "or a signed URL (`user`, `expires`, `signature`: it downloads while that user may). " +
      "Strong ETag, If-None-Match → 304, one byte range → 206 (416 past the end), Repr-Digest. " +
      "With object storage and STORAGE_DOWNLOADS=redirect: 302 to a presigned URL valid for 5 minutes. " +
      "A browser's request for it as part of a page (`Sec-Fetch-Dest` other than `document` or `empty`): 403.",
  };

  return new Elysia()
    .use(bearerAuth(ctx))
    .get(
      "/api/products/:product/versions/:version/download",
      ({ params, request, bearer, set }) => download(params, request, bearer, set),
      {
        detail: downloadDoc,
      },
    )
    .head(
      "/api/products/:product/versions/:version/download",
      ({ params, request, bearer, set }) => download(params, request, bearer, set),
      {
        detail: { ...downloadDoc, summary: "A version's file headers" },
      },
    )
    .post(
      "/api/products/:product/versions",
      async ({ params, request, actor, set }) => {
        const { status, body } = await publish(actor, request, pathId(params.product, "Product"), null);
        set.status = status;
        return body;
      },
      {
        auth: true,
        response: publishResponses,
        detail: { summary: "Publish a version of a product", ...publishDoc },
      },
    )
    .post(
      "/api/products/:product/benefits/:benefit/versions",
      async ({ params, request, actor, set }) => {
        const benefitId = pathId(params.benefit, "Benefit");
        const { status, body } = await publish(actor, request, pathId(params.product, "Product"), benefitId);
        set.status = status;
        return body;
      },
      {
        auth: true,
        response: publishResponses,
        detail: { summary: "Publish a version of one benefit of a product", ...publishDoc },
      },
    )
    .get(
      "/api/products/:product/versions",
      async ({ params, query, actor, request }) => {
        const page = pageRequest(query);
        const rows = await listVersions(ctx, actor, pathId(params.product, "Product"), page);
        return simplePage(rows.map(json), page, request);
      },
      {
        auth: true,
        query: VersionListQuery,
        response: { 200: VersionPageJson, 401: MessageJson, 404: MessageJson, 422: ValidationJson },
        detail: { summary: "List a product's versions, newest first", tags },
      },
    )
    .get(
      "/api/products/:product/versions/latest",
      async ({ params, query, actor }) => {
        const benefitId = query.benefit === undefined || query.benefit === "" ? null : toId(query.benefit);
        if (query.benefit && benefitId === null) {
          throw new Invalid({ benefit: ["The benefit field must be an integer."] });
        }
        return { data: json(await latestVersion(ctx, actor, pathId(params.product, "Product"), benefitId)) };
      },
      {
        auth: true,
        query: LatestQuery,
        response: { 200: dataOf(VersionJson), 401: MessageJson, 404: MessageJson, 422: ValidationJson },
        detail: { summary: "The newest version of the product, or of one benefit (?benefit=ID)", tags },
      },
    )
    .get(
      "/api/products/:product/versions/:version",
      async ({ params, actor }) => {
        const productId = pathId(params.product, "Product");
        return { data: json(await readVersion(ctx, actor, productId, pathId(params.version, "Version"))) };
      },
      {
        auth: true,
        response: { 200: dataOf(VersionJson), 401: MessageJson, 404: MessageJson },
        detail: { summary: "Read a version", tags },
      },
    )
    .delete(
      "/api/products/:product/versions/:version",
      async ({ params, actor, set }) => {
        await deleteVersion(ctx, actor, pathId(params.product, "Product"), pathId(params.version, "Version"));
        set.status = 204;
      },
      {
        auth: true,
        response: { 401: MessageJson, 403: MessageJson, 404: MessageJson },
        detail: { summary: "Delete a version and its file (publishers of the product)", tags },
      },
    );
};
