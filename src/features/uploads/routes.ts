import { type DocumentDecoration, Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { answers } from "../../http/schemas.ts";
import { UuidParam } from "../../validation/ids.ts";
import { bearerAuth } from "../auth/guards.ts";
import {
  appendToUpload,
  overriddenRequest,
  startUpload,
  type TusRequest,
  terminateUpload,
  tusCapabilities,
  tusProtocol,
  uploadStatus,
} from "./tus-requests.ts";

const UploadParams = t.Object({ id: UuidParam("Upload") });
// What a request that may carry bytes can be refused with, besides its guard's (tusProtocol adds 412).
const CHUNK = [400, 404, 409, 410, 413, 415, 460, 503, 507] as const;
const optionsDoc = answers("The tus version, extensions and largest upload this server takes", {});

/** A tus request: the publish grant first, then the protocol's checks for this kind of request. */
const tusApi = <S extends NonNullable<Parameters<typeof answers>[2]>>(
  tus: TusRequest,
  statuses: readonly S[],
  detail: string | DocumentDecoration,
) => ({ auth: "versions.publish" as const, tus, ...answers(detail, {}, ...statuses) });

/**
 * Resumable uploads: the tus 1.0.0 protocol with its creation, creation-with-upload, termination,
 * expiration and checksum extensions (docs/vendors.md: Resumable uploads). A finished upload is published by
 * naming it in the JSON publish request (`upload_id`).
 */
export const uploadRoutes = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/uploads", tags: ["Resumable uploads"] })
    .use(bearerAuth(ctx))
    .use(tusProtocol)
    .options("", () => tusCapabilities(ctx), optionsDoc)
    .options("/:id", () => tusCapabilities(ctx), optionsDoc)
    .post("", ({ request, actor }) => startUpload(ctx, actor, request), {
      ...tusApi("creation", [...CHUNK, 429], {
        summary: "Start a resumable upload (tus creation, optionally with its first bytes)",
        description:
          "Headers: `Tus-Resumable: 1.0.0`, `Upload-Length`, optional `Upload-Metadata` (`filename`, " +
          "`filetype`). A body of type application/offset+octet-stream carries the first bytes. 201 with " +
          "`Location`; publish the finished upload with `upload_id` in the JSON publish request. " +
          "413 past MAX_UPLOAD_BYTES, the release store's free space or the caller's " +
          "MAX_OPEN_UPLOAD_BYTES; 429 past the caller's MAX_OPEN_UPLOADS.",
        responses: { 201: { description: "Created; `Location` is the upload's URL" } },
      }),
    })
    .head("/:id", ({ params, actor }) => uploadStatus(ctx, actor, params.id), {
      ...tusApi("status", [404, 410], "An upload's offset: how many bytes the server has"),
      params: UploadParams,
    })
    .patch("/:id", ({ params, request, actor }) => appendToUpload(ctx, actor, params.id, request), {
      ...tusApi("chunk", CHUNK, {
        summary: "Send an upload's next bytes",
        description:
          "`Upload-Offset` must be the upload's offset (409 otherwise); optional `Upload-Checksum: sha256 " +
          "<base64>` (460 when the bytes do not match, and nothing of them is kept).",
      }),
      params: UploadParams,
    })
    .delete("/:id", ({ params, actor }) => terminateUpload(ctx, actor, params.id), {
      ...tusApi("termination", CHUNK, "Cancel an upload and remove its bytes (tus termination)"),
      params: UploadParams,
    })
    .post("/:id", ({ params, request, actor }) => overriddenRequest(ctx, actor, params.id, request), {
      ...tusApi("override", [...CHUNK, 405], {
        summary: "PATCH or DELETE an upload through POST (X-HTTP-Method-Override)",
        description:
          "`X-HTTP-Method-Override: PATCH` sends bytes as PATCH does, `DELETE` terminates the upload; " +
          "without either: 405.",
      }),
      params: UploadParams,
    });
