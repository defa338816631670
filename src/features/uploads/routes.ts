import { Elysia } from "elysia";
import type { AppContext } from "../../context.ts";
import type { UploadRow } from "../../db/schema/index.ts";
import { AppError } from "../../errors.ts";
import { bearerAuth } from "../../http/auth.ts";
import { MessageJson } from "../../http/schemas.ts";
import type { Actor } from "../auth/actor.ts";
import { appendChunk, createUpload, findOwnUpload, removeUpload, requireUnexpired } from "./service.ts";
import {
  formatMetadata,
  hasBody,
  integerHeader,
  parseChecksum,
  parseMetadata,
  requireChunkType,
  requireTusResumable,
  TUS_CHECKSUM_ALGORITHMS,
  TUS_EXTENSIONS,
  TUS_VERSION,
} from "./tus.ts";

const tags = ["Resumable uploads"];
const errors = {
  400: MessageJson,
  401: MessageJson,
  403: MessageJson,
  404: MessageJson,
  409: MessageJson,
  410: MessageJson,
  412: MessageJson,
  413: MessageJson,
  415: MessageJson,
  460: MessageJson,
  503: MessageJson,
  507: MessageJson,
};

/** Every tus answer, errors included, says which protocol version it speaks. */
const tusResumable = ({ responseValue }: { responseValue: unknown }) => {
  if (responseValue instanceof Response) responseValue.headers.set("tus-resumable", TUS_VERSION);
  return responseValue as Response;
};

/** Upload-Expires while the upload can still be continued (an HTTP date, as tus's expiration asks). */
const expiryHeader = (row: UploadRow): Record<string, string> =>
  row.storageKey === null ? { "upload-expires": row.expiresAt.toUTCString() } : {};

const body = (request: Request) => (request.body ?? []) as AsyncIterable<Uint8Array>;

/**
 * Resumable uploads: the tus 1.0.0 protocol with its creation, creation-with-upload, termination,
 * expiration and checksum extensions (README: Resumable uploads). A finished upload is published by
 * naming it in the JSON publish request (`upload_id`).
 */
export const uploadRoutes = (ctx: AppContext) => {
  // A path, resolved by the client against the URL it sent the POST to: right whatever host or port
  // the client reached depot by, and under APP_URL's path prefix behind a proxy.
  const basePath = new URL(ctx.config.appUrl).pathname.replace(/\/+$/, "");
  const uploadPath = (id: string) => `${basePath}/api/uploads/${id}`;
  const capabilities = {
    "tus-resumable": TUS_VERSION,
    "tus-version": TUS_VERSION,
    "tus-extension": TUS_EXTENSIONS,
    "tus-max-size": String(ctx.config.maxUploadBytes),
    "tus-checksum-algorithm": TUS_CHECKSUM_ALGORITHMS,
  };
  const options = () => new Response(null, { status: 204, headers: capabilities });
  const optionsDoc = { tags, summary: "The tus version, extensions and largest upload this server takes" };

  const continueUpload = async (id: string, request: Request, actor: Actor) => {
    const headers = request.headers;
    requireTusResumable(headers);
    requireChunkType(headers);
    const row = requireUnexpired(await findOwnUpload(ctx, actor, id));
    const offset = integerHeader(headers, "upload-offset");
    const checksum = parseChecksum(headers.get("upload-checksum"));
    const updated = await appendChunk(ctx, row, offset, body(request), checksum);
    return new Response(null, {
      status: 204,
      headers: { "upload-offset": String(updated.received), ...expiryHeader(updated) },
    });
  };
  const terminateUpload = async (id: string, request: Request, actor: Actor) => {
    requireTusResumable(request.headers);
    await removeUpload(ctx, await findOwnUpload(ctx, actor, id));
    return new Response(null, { status: 204 });
  };

  return new Elysia()
    .use(bearerAuth(ctx))
    .options("/api/uploads", options, { detail: optionsDoc })
    .options("/api/uploads/:id", options, { detail: optionsDoc })
    .post(
      "/api/uploads",
      async ({ request, actor }) => {
        const headers = request.headers;
        requireTusResumable(headers);
        if (headers.has("upload-defer-length")) {
          throw new AppError(400, "Upload-Length is required: deferring it is not supported.");
        }
        const length = integerHeader(headers, "upload-length");
        const metadata = parseMetadata(headers.get("upload-metadata"));
        const withBytes = hasBody(headers);
        if (withBytes) requireChunkType(headers);
        const checksum = withBytes ? parseChecksum(headers.get("upload-checksum")) : null;
        let row = await createUpload(ctx, actor, length, metadata);
        if (withBytes) row = await appendChunk(ctx, row, 0, body(request), checksum);
        return Response.json(
          {
            data: {
              id: row.id,
              length: row.length,
              offset: row.received,
              expires_at: row.expiresAt.toISOString(),
            },
          },
          {
            status: 201,
            headers: {
              location: uploadPath(row.id),
              "upload-offset": String(row.received),
              ...expiryHeader(row),
            },
          },
        );
      },
      {
        auth: "versions.publish",
        mapResponse: tusResumable,
        detail: {
          tags,
          summary: "Start a resumable upload (tus creation, optionally with its first bytes)",
          description:
            "Headers: `Tus-Resumable: 1.0.0`, `Upload-Length`, optional `Upload-Metadata` (`filename`, " +
            "`filetype`). A body of type application/offset+octet-stream carries the first bytes. 201 with " +
            "`Location`; publish the finished upload with `upload_id` in the JSON publish request. " +
            "413 past MAX_UPLOAD_BYTES, the release store's free space or the caller's " +
            "MAX_OPEN_UPLOAD_BYTES; 429 past the caller's MAX_OPEN_UPLOADS.",
          responses: { 201: { description: "Created; `Location` is the upload's URL" } },
        },
        response: { ...errors, 429: MessageJson },
      },
    )
    .head(
      "/api/uploads/:id",
      async ({ params, request, actor }) => {
        requireTusResumable(request.headers);
        const row = requireUnexpired(await findOwnUpload(ctx, actor, params.id));
        const metadata = formatMetadata(row.metadata);
        return new Response(null, {
          status: 200,
          headers: {
            "upload-offset": String(row.received),
            "upload-length": String(row.length),
            "cache-control": "no-store",
            ...(metadata === "" ? {} : { "upload-metadata": metadata }),
            ...expiryHeader(row),
          },
        });
      },
      {
        auth: "versions.publish",
        mapResponse: tusResumable,
        detail: { tags, summary: "An upload's offset: how many bytes the server has" },
      },
    )
    .patch("/api/uploads/:id", ({ params, request, actor }) => continueUpload(params.id, request, actor), {
      auth: "versions.publish",
      mapResponse: tusResumable,
      detail: {
        tags,
        summary: "Send an upload's next bytes",
        description:
          "`Upload-Offset` must be the upload's offset (409 otherwise); optional `Upload-Checksum: sha256 " +
          "<base64>` (460 when the bytes do not match, and nothing of them is kept).",
      },
      response: errors,
    })
    .delete("/api/uploads/:id", ({ params, request, actor }) => terminateUpload(params.id, request, actor), {
      auth: "versions.publish",
      mapResponse: tusResumable,
      detail: { tags, summary: "Cancel an upload and remove its bytes (tus termination)" },
      response: errors,
    })
    .post(
      "/api/uploads/:id",
      ({ params, request, actor }) => {
        // tus 1.0.0: a server MUST take X-HTTP-Method-Override as the method, for clients behind
        // proxies that let only GET and POST through (tus-js-client's `overridePatchMethod`).
        const method = request.headers.get("x-http-method-override")?.trim().toUpperCase();
        if (method === "PATCH") return continueUpload(params.id, request, actor);
        if (method === "DELETE") return terminateUpload(params.id, request, actor);
        throw new AppError(405, "POST to an upload needs X-HTTP-Method-Override: PATCH or DELETE.", {
          allow: "OPTIONS, HEAD, PATCH, DELETE, POST",
        });
      },
      {
        auth: "versions.publish",
        mapResponse: tusResumable,
        detail: {
          tags,
          summary: "PATCH or DELETE an upload through POST (X-HTTP-Method-Override)",
          description:
            "`X-HTTP-Method-Override: PATCH` sends bytes as PATCH does, `DELETE` terminates the upload; " +
            "without either: 405.",
        },
        response: { ...errors, 405: MessageJson },
      },
    );
};
