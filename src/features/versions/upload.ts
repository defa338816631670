import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import busboy from "busboy";
import { AppError, Invalid, PayloadTooLarge } from "../../errors.ts";
import { fieldsWithNul, nulInvalid, parseJsonBody, readBodyText } from "../../http/json-body.ts";
import { mediaTypeOrDefault } from "../../http/media-type.ts";
import type { ReceivedFile, StoredFile } from "../../storage/received-file.ts";
import { newStorageKey, type ReleaseStorage } from "../../storage/storage.ts";
import { cleanFileName } from "../../validation/file-name.ts";

/** The file a version is published with: where it is stored, and the name and type it came with. */
export interface UploadedFile extends StoredFile {
  fileName: string;
  contentType: string;
  /** Base64 SHA-512 of the bytes (electron-updater's digest), taken as they arrived. */
  sha512: string;
  /** Set for the file of a finished resumable upload: already kept, and the upload's until published. */
  uploadId?: string;
}

/** A file this request carried: received by the store, and removed again unless a version keeps it. */
export type ReceivedUpload = ReceivedFile & UploadedFile;

/** The request's fields (still unvalidated) and its file. */
export interface Upload {
  fields: Record<string, unknown>;
  file: ReceivedUpload | null;
  /** The JSON form's `upload_id` as sent (unvalidated): publish a finished resumable upload. */
  uploadId?: unknown;
}

export interface UploadLimits {
  maxUploadBytes: number;
  maxJsonUploadBytes: number;
}

/** A request's file streamed into the release store under a new key of the product's (publishing, adding a file). */
export const receiveUpload = (
  ctx: { releases: ReleaseStorage; config: UploadLimits },
  request: Request,
  productId: number,
): Promise<Upload> => readUpload(request, ctx.releases, ctx.config, newStorageKey(productId));

/**
 * Reads a publish request in either form: multipart (streamed to the store) or JSON with base64. The
 * file is received under `key` (see newStorageKey).
 */
export function readUpload(
  request: Request,
  store: ReleaseStorage,
  limits: UploadLimits,
  key: string,
): Promise<Upload> {
  const type = request.headers.get("content-type")?.toLowerCase() ?? "";
  if (type.startsWith("multipart/form-data"))
    return readMultipart(request, store, limits.maxUploadBytes, key);
  if (type.startsWith("application/json"))
    return readBase64Json(request, store, limits.maxJsonUploadBytes, key);
  throw new AppError(415, "Send the version as multipart/form-data or as application/json.");
}

/** A changelog may be 1,000,000 characters (PublishFields) of up to 4 bytes each in UTF-8. */
const FIELD_LIMITS = { fields: 20, fieldSize: 4 * 1024 * 1024, files: 1, parts: 25 };

/**
 * busboy parses the multipart stream; the `file` part goes straight to the release store, which
 * hashes and writes it chunk by chunk. Nothing holds the whole file in memory. If the body cannot be
 * read or a field is refused, the received file is removed before the error reaches the caller.
 */
async function readMultipart(
  request: Request,
  store: ReleaseStorage,
  maxBytes: number,
  key: string,
): Promise<Upload> {
  if (!request.body) throw new Invalid({ file: ["The file field is required."] });
  const parser = busboy({
    headers: { "content-type": request.headers.get("content-type") ?? "" },
    limits: FIELD_LIMITS,
    // busboy reads filename="…" as Latin-1 unless told otherwise; browsers and curl send UTF-8.
    defParamCharset: "utf8",
  });
  const source = Readable.fromWeb(request.body as NodeReadableStream<Uint8Array>);
  const fields: Record<string, unknown> = {};
  // Whatever is thrown below, the file received so far is removed; a returned one is the caller's.
  await using cleanup = new AsyncDisposableStack();
  let receiving: Promise<ReceivedUpload> | null = null;

  const truncated: string[] = [];
  parser.on("field", (name, value, info) => {
    if (info.valueTruncated) truncated.push(name);
    fields[name] = value;
  });
  parser.on("file", (name, stream, info) => {
    if (name !== "file" || receiving) {
      fields[name] = "(a file)"; // reported as an unknown field; its bytes are drained
      stream.resume();
      return;
    }
    const sha512 = new Bun.CryptoHasher("sha512");
    receiving = store.receive(hashing(stream, sha512), maxBytes, key).then((file) =>
      cleanup.use(
        Object.assign(file, {
          fileName: cleanFileName(info.filename),
          contentType: mediaTypeOrDefault(info.mimeType),
          sha512: sha512.digest("base64"),
        }),
      ),
    );
    // A failed write stops the whole parse, and `pipeline` below rejects with its error. Destroying
    // the source is not enough once the whole body has been read: busboy would then wait for ever
    // for a file stream nobody reads, so the parser is destroyed as well.
    receiving.catch((error) => {
      source.destroy(error);
      parser.destroy(error);
    });
  });

  try {
    await pipeline(source, parser);
  } catch (error) {
    // Wait for the file to settle, so that a file received in full is removed with the rest.
    const failure = await (receiving as Promise<ReceivedUpload> | null)?.then(
      () => null,
      (cause: unknown) => cause,
    );
    // The store's own failure (a full disk, a file too large) is the cause; the parser only saw its echo.
    if (failure instanceof AppError) throw failure;
    if (error instanceof AppError) throw error;
    throw new AppError(400, "The multipart body could not be read.");
  }
  const file = await (receiving as Promise<ReceivedUpload> | null);
  if (truncated.length > 0) {
    throw new Invalid(
      Object.fromEntries(
        truncated.map((name) => [name, [`The ${name.replaceAll("_", " ")} field is too long.`]]),
      ),
    );
  }
  const withNul = fieldsWithNul(fields);
  if (withNul.length > 0) throw nulInvalid(withNul);
  cleanup.move();
  return { fields, file };
}

const DATA_URI = /^data:([^;,]*)(?:;[^;,]*)*;base64,/i;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The JSON form: `file: {filename, content, content_type?}`, `content` base64 or a `data:` URI; or
 * `upload_id`, a finished resumable upload (resolved when the version is published).
 */
async function readBase64Json(
  request: Request,
  store: ReleaseStorage,
  maxBytes: number,
  key: string,
): Promise<Upload> {
  const body = parseJsonBody(await readBodyText(request, maxJsonBody(maxBytes)));
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new Invalid({ body: ["The request body must be a JSON object."] });
  }
  const { file, upload_id: uploadId, ...fields } = body as Record<string, unknown>;
  if (file === undefined || file === null) return { fields, file: null, uploadId };
  const { filename, content, content_type } = file as Record<string, unknown>;
  if (
    typeof filename !== "string" ||
    filename === "" ||
    typeof content !== "string" ||
    typeof file !== "object"
  ) {
    throw new Invalid({ file: ["The file field must be an object with a filename and base64 content."] });
  }
  const uri = DATA_URI.exec(content);
  const base64 = uri ? content.slice(uri[0].length) : content;
  // Three bytes per four characters: refuse before decoding anything.
  if (
    Math.floor((base64.length * 3) / 4) - (base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0) >
    maxBytes
  ) {
    throw new PayloadTooLarge(`The file may not be greater than ${maxBytes} bytes.`);
  }
  if (base64.length % 4 !== 0 || !BASE64.test(base64)) {
    throw new Invalid({ "file.content": ["The file content must be valid base64."] });
  }
  const bytes = Buffer.from(base64, "base64");
  const received = await store.receive([bytes], maxBytes, key);
  const contentType = mediaTypeOrDefault(typeof content_type === "string" ? content_type : uri?.[1]);
  return {
    fields,
    file: Object.assign(received, {
      fileName: cleanFileName(filename),
      contentType,
      sha512: new Bun.CryptoHasher("sha512").update(bytes).digest("base64"),
    }),
    uploadId,
  };
}

/**
 * `source`, passed through while `hash` takes in every chunk: the store hashes SHA-256 itself, and the
 * SHA-512 electron-updater checks is taken on the same pass rather than by reading the file again.
 */
async function* hashing(source: AsyncIterable<Uint8Array>, hash: Bun.CryptoHasher) {
  for await (const chunk of source) {
    hash.update(chunk);
    yield chunk;
  }
}

/** The JSON form's largest body: the file in base64 (4 characters per 3 bytes) plus 1 MiB of fields. */
export const maxJsonBody = (maxFileBytes: number) => Math.ceil(maxFileBytes / 3) * 4 + 1024 * 1024;
