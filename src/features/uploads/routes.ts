import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { refusals } from "../../http/schemas.ts";
import { UuidParam } from "../../validation/ids.ts";
import { bearerAuth } from "../auth/guards.ts";
import {
  appendToUpload,
  overriddenRequest,
  startUpload,
  terminateUpload,
  tusCapabilities,
  tusProtocol,
  uploadStatus,
} from "./tus-requests.ts";

const tags = ["Resumable uploads"];
const UploadParams = t.Object({ id: UuidParam("Upload") });
// What a request that may carry bytes can be refused with, besides its guard's (tusProtocol adds 412).
const chunkRefusals = refusals(400, 404, 409, 410, 413, 415, 460, 503, 507);
const optionsDoc = { tags, summary: "The tus version, extensions and largest upload this server takes" };

/**
 * Resumable uploads: the tus 1.0.0 protocol with its creation, creation-with-upload, termination,
 * expiration and checksum extensions (docs/vendors.md: Resumable uploads). A finished upload is published by
 * naming it in the JSON publish request (`upload_id`).
 */
export const uploadRoutes = (ctx: AppContext) =>
  new Elysia()
    .use(bearerAuth(ctx))
    .use(tusProtocol)
    .options("/api/uploads", () => tusCapabilities(ctx), { detail: optionsDoc })
    .options("/api/uploads/:id", () => tusCapabilities(ctx), { detail: optionsDoc })
    .post("/api/uploads", ({ request, actor }) => startUpload(ctx, actor, request), {
      auth: "versions.publish",
      tus: "creation",
      response: { ...chunkRefusals, ...refusals(429) },
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
    })
    .head("/api/uploads/:id", ({ params, actor }) => uploadStatus(ctx, actor, params.id), {
      auth: "versions.publish",
      tus: "status",
      params: UploadParams,
      response: refusals(404, 410),
      detail: { tags, summary: "An upload's offset: how many bytes the server has" },
    })
    .patch(
      "/api/uploads/:id",
      ({ params, request, actor }) => appendToUpload(ctx, actor, params.id, request),
      {
        auth: "versions.publish",
        tus: "chunk",
        params: UploadParams,
        response: chunkRefusals,
        detail: {
          tags,
          summary: "Send an upload's next bytes",
          description:
            "`Upload-Offset` must be the upload's offset (409 otherwise); optional `Upload-Checksum: sha256 " +
            "<base64>` (460 when the bytes do not match, and nothing of them is kept).",
        },
      },
    )
    .delete("/api/uploads/:id", ({ params, actor }) => terminateUpload(ctx, actor, params.id), {
      auth: "versions.publish",
      tus: "termination",
      params: UploadParams,
      response: chunkRefusals,
      detail: { tags, summary: "Cancel an upload and remove its bytes (tus termination)" },
    })
    .post(
      "/api/uploads/:id",
      ({ params, request, actor }) => overriddenRequest(ctx, actor, params.id, request),
      {
        auth: "versions.publish",
        tus: "override",
        params: UploadParams,
        response: { ...chunkRefusals, ...refusals(405) },
        detail: {
          tags,
          summary: "PATCH or DELETE an upload through POST (X-HTTP-Method-Override)",
          description:
            "`X-HTTP-Method-Override: PATCH` sends bytes as PATCH does, `DELETE` terminates the upload; " +
            "without either: 405.",
        },
      },
    );
