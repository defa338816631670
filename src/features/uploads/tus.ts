import { AppError } from "../../errors.ts";

/** The tus protocol depot speaks (https://tus.io/protocols/resumable-upload, version 1.0.0). */
export const TUS_VERSION = "1.0.0";
export const TUS_EXTENSIONS = "creation,creation-with-upload,termination,expiration,checksum";
export const TUS_CHECKSUM_ALGORITHMS = "sha256";
/** The body type of PATCH (and of POST with creation-with-upload). */
export const CHUNK_TYPE = "application/offset+octet-stream";

/** 460, the checksum extension's own status: the bytes did not arrive as sent. */
export class ChecksumMismatch extends AppError {
  constructor() {
    super(460, "The checksum of the request body does not match Upload-Checksum; nothing of it was kept.");
  }
}

/** Every tus request but OPTIONS names the protocol version it speaks; depot speaks one. */
export function requireTusResumable(headers: Headers): void {
  const version = headers.get("tus-resumable");
  if (version !== TUS_VERSION) {
    throw new AppError(
      412,
      version === null
        ? "The Tus-Resumable header is required (tus 1.0.0)."
        : `Tus-Resumable ${version} is not supported; this server speaks tus ${TUS_VERSION}.`,
      { "tus-version": TUS_VERSION },
    );
  }
}

/** A non-negative integer header (Upload-Length, Upload-Offset), or a 400 naming it. */
export function integerHeader(headers: Headers, name: string): number {
  const raw = headers.get(name);
  if (raw === null) throw new AppError(400, `The ${name} header is required.`);
  if (!/^\d{1,16}$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
    throw new AppError(400, `The ${name} header must be a non-negative integer.`);
  }
  return Number(raw);
}

/** The longest Upload-Metadata accepted: a file name and type need far less. */
const MAX_METADATA_LENGTH = 8 * 1024;
const METADATA_KEY = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Upload-Metadata: comma-separated `key base64value` pairs (the value may be left out). Keys are
 * unique tokens; values are decoded as UTF-8. Anything else is a 400, since tus gives no field to
 * point a 422 at.
 */
export function parseMetadata(raw: string | null): Record<string, string> {
  if (raw === null || raw.trim() === "") return {};
  if (raw.length > MAX_METADATA_LENGTH) {
    throw new AppError(400, `Upload-Metadata may not be longer than ${MAX_METADATA_LENGTH} characters.`);
  }
  const metadata: Record<string, string> = {};
  for (const pair of raw.split(",")) {
    const [key, value = "", ...rest] = pair.trim().split(" ");
    if (key === undefined || !METADATA_KEY.test(key) || rest.length > 0 || key in metadata) {
      throw new AppError(400, "Upload-Metadata must be comma-separated, unique `key base64value` pairs.");
    }
    if (value.length % 4 !== 0 || !BASE64.test(value)) {
      throw new AppError(400, `The Upload-Metadata value of ${key} must be base64.`);
    }
    metadata[key] = Buffer.from(value, "base64").toString("utf8");
  }
  return metadata;
}

export function formatMetadata(metadata: Record<string, string>): string {
  return Object.entries(metadata)
    .map(([key, value]) => (value === "" ? key : `${key} ${Buffer.from(value, "utf8").toString("base64")}`))
    .join(",");
}

/**
 * Upload-Checksum: `sha256 <base64 digest>` of this request's body, as hex to compare with the store's
 * digest; null when the header is absent. Another algorithm is a 400 (OPTIONS lists the one we take).
 */
export function parseChecksum(raw: string | null): string | null {
  if (raw === null) return null;
  const [algorithm, digest, ...rest] = raw.trim().split(" ");
  if (algorithm?.toLowerCase() !== "sha256" || rest.length > 0) {
    throw new AppError(400, `Upload-Checksum must use ${TUS_CHECKSUM_ALGORITHMS}.`);
  }
  const bytes = digest !== undefined && BASE64.test(digest) ? Buffer.from(digest, "base64") : null;
  if (bytes?.length !== 32) throw new AppError(400, "Upload-Checksum must carry a base64 SHA-256 digest.");
  return bytes.toString("hex");
}

/**
 * The method a POST to an upload stands for. tus 1.0.0: a server MUST take X-HTTP-Method-Override as
 * the method, for clients behind proxies that let only GET and POST through (tus-js-client's
 * `overridePatchMethod`); a POST without PATCH or DELETE there is a 405.
 */
export function overriddenMethod(headers: Headers): "PATCH" | "DELETE" {
  const method = headers.get("x-http-method-override")?.trim().toUpperCase();
  if (method === "PATCH" || method === "DELETE") return method;
  throw new AppError(405, "POST to an upload needs X-HTTP-Method-Override: PATCH or DELETE.", {
    allow: "OPTIONS, HEAD, PATCH, DELETE, POST",
  });
}

/** A body of the chunk type, or a 415 (a body of any other type is not an upload's bytes). */
export function requireChunkType(headers: Headers): void {
  const type = headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
  if (type !== CHUNK_TYPE) throw new AppError(415, `Send the upload's bytes as ${CHUNK_TYPE}.`);
}

/** Whether the request carries a body at all (a declared length above 0, or chunked). */
export function hasBody(headers: Headers): boolean {
  const declared = headers.get("content-length");
  return declared === null ? headers.has("transfer-encoding") : Number(declared) > 0;
}
