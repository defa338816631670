import { Elysia } from "elysia";
import type { AppContext } from "../../context.ts";
import type { UploadRow } from "../../db/schema/index.ts";
import { AppError } from "../../errors.ts";
import { refusals } from "../../http/schemas.ts";
import type { Actor } from "../auth/actor.ts";
import { toUploadJson } from "./json.ts";
import { appendChunk, createUpload, findOwnUpload, removeUpload, requireUnexpired } from "./service.ts";
import {
  formatMetadata,
  hasBody,
  integerHeader,
  overriddenMethod,
  parseChecksum,
  parseMetadata,
  requireChunkType,
  requireTusResumable,
  TUS_CHECKSUM_ALGORITHMS,
  TUS_EXTENSIONS,
  TUS_VERSION,
} from "./tus.ts";

// Each tus request as depot answers it: its headers read, the upload service called, the answer
// written in the protocol's headers. routes.ts declares them.

export type TusRequest = "creation" | "status" | "chunk" | "termination" | "override";

/**
 * `tus: "<kind>"` in a route's options, after `auth`. The headers a kind of request must carry are
 * checked in `transform`, which runs before the path's id is validated, so a request wrong in both
 * hears about its headers first (405 a POST without an override, 412 Tus-Resumable, 415 the bytes'
 * type), then about the upload. Every answer, errors included, says which protocol version it speaks.
 */
export const tusProtocol = new Elysia({ name: "uploads.tus" }).macro({
  tus: (kind: TusRequest) => ({
    response: refusals(412),
    transform({ request }) {
      const method = kind === "override" ? overriddenMethod(request.headers) : null;
      requireTusResumable(request.headers);
      if (kind === "chunk" || method === "PATCH") requireChunkType(request.headers);
    },
    mapResponse({ responseValue }) {
      if (responseValue instanceof Response) responseValue.headers.set("tus-resumable", TUS_VERSION);
      return responseValue as Response;
    },
  }),
});

export const tusCapabilities = (ctx: AppContext) =>
  new Response(null, {
    status: 204,
    headers: {
      "tus-resumable": TUS_VERSION,
      "tus-version": TUS_VERSION,
      "tus-extension": TUS_EXTENSIONS,
      "tus-max-size": String(ctx.config.maxUploadBytes),
      "tus-checksum-algorithm": TUS_CHECKSUM_ALGORITHMS,
    },
  });

/**
 * Creation, with the first bytes when the request carries any (creation-with-upload). `Location` is
 * a path the client resolves against the URL it posted to: right whatever host or port it reached
 * depot by, and under APP_URL's path prefix behind a proxy.
 */
export async function startUpload(ctx: AppContext, actor: Actor, request: Request): Promise<Response> {
  const headers = request.headers;
  if (headers.has("upload-defer-length")) {
    throw new AppError(400, "Upload-Length is required: deferring it is not supported.");
  }
  const length = integerHeader(headers, "upload-length");
  const metadata = parseMetadata(headers.get("upload-metadata"));
  const withBytes = hasBody(headers);
  if (withBytes) requireChunkType(headers);
  const checksum = withBytes ? parseChecksum(headers.get("upload-checksum")) : null;
  let row = await createUpload(ctx, actor, length, metadata);
  if (withBytes) row = await appendChunk(ctx, row, 0, bytesOf(request), checksum);
  const basePath = new URL(ctx.config.appUrl).pathname.replace(/\/+$/, "");
  return Response.json(
    { data: toUploadJson(row) },
    {
      status: 201,
      headers: {
        location: `${basePath}/api/uploads/${row.id}`,
        "upload-offset": String(row.received),
        ...expiryHeader(row),
      },
    },
  );
}

/** HEAD: how many bytes the server has, where a client resumes. */
export async function uploadStatus(ctx: AppContext, actor: Actor, id: string): Promise<Response> {
  const row = requireUnexpired(await findOwnUpload(ctx, actor, id));
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
}

export async function appendToUpload(
  ctx: AppContext,
  actor: Actor,
  id: string,
  request: Request,
): Promise<Response> {
  const row = requireUnexpired(await findOwnUpload(ctx, actor, id));
  const offset = integerHeader(request.headers, "upload-offset");
  const checksum = parseChecksum(request.headers.get("upload-checksum"));
  const updated = await appendChunk(ctx, row, offset, bytesOf(request), checksum);
  return new Response(null, {
    status: 204,
    headers: { "upload-offset": String(updated.received), ...expiryHeader(updated) },
  });
}

export async function terminateUpload(ctx: AppContext, actor: Actor, id: string): Promise<Response> {
  await removeUpload(ctx, await findOwnUpload(ctx, actor, id));
  return new Response(null, { status: 204 });
}

/** A POST that stands for PATCH or DELETE (its override was checked with its headers). */
export const overriddenRequest = (ctx: AppContext, actor: Actor, id: string, request: Request) =>
  overriddenMethod(request.headers) === "PATCH"
    ? appendToUpload(ctx, actor, id, request)
    : terminateUpload(ctx, actor, id);

/** Upload-Expires while the upload can still be continued (an HTTP date, as tus's expiration asks). */
const expiryHeader = (row: UploadRow): Record<string, string> =>
  row.storageKey === null ? { "upload-expires": row.expiresAt.toUTCString() } : {};

const bytesOf = (request: Request) => (request.body ?? []) as AsyncIterable<Uint8Array>;
