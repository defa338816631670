import { AppError } from "../errors.ts";
import type { ByteRange, FileBody } from "../storage/storage.ts";
import { parseRangeHeader } from "./byte-ranges.ts";
import { multipartRanges } from "./multipart-ranges.ts";

/** 416 with the file's size in `Content-Range` (and its validators), rendered like every other error. */
export class RangeNotSatisfiable extends AppError {
  constructor(size: number, headers: Record<string, string>, message: string) {
    super(416, message, { ...headers, "content-range": `bytes */${size}` });
  }
}

/** What a download needs to know of the stored file. */
export interface ServedFile {
  /** The file's bytes, all or one range, as the release store hands them out (see ReleaseStorage.body). */
  body(range: ByteRange | null, options: { plainStream: boolean }): FileBody;
  size: number;
  sha256: string;
  fileName: string;
  contentType: string;
}

export interface FileResponse {
  response: Response;
  /** Whether this counts as a download (a whole file or the start of one), for the counter. */
  counts: boolean;
}

/**
 * A release file as HTTP wants it: strong ETag (the SHA-256), 304 on If-None-Match, byte ranges (one:
 * a 206 with Content-Range; several: a 206 `multipart/byteranges`; a malformed, unsatisfiable or
 * excessive Range: a 416 with the size; byte-ranges.ts decides), Repr-Digest, and Content-Disposition
 * with an RFC 6266 `filename*`.
 *
 * Range is handled here and only here. Bun.serve would also answer Range for a 200 file body by
 * itself, so a 200 to a request that carried a Range we chose to ignore asks the store for a plain
 * stream, which Bun leaves alone; on local disk every other body is a `Bun.file` so Bun can use
 * sendfile, from a bucket it is a stream of a (ranged) GET. A multipart body is always a stream,
 * built part by part as the client reads it (multipart-ranges.ts).
 */
export function fileResponse(request: Request, file: ServedFile): FileResponse {
  const etag = etagOf(file.sha256);
  const headers = new Headers({
    "content-type": file.contentType,
    "content-disposition": contentDisposition(file.fileName),
    etag,
    "accept-ranges": "bytes",
    "repr-digest": `sha-256=:${Buffer.from(file.sha256, "hex").toString("base64")}:`,
    "cache-control": "private, no-cache",
  });
  if (alreadyHeld(request, file.sha256)) {
    return { response: new Response(null, { status: 304, headers }), counts: false };
  }
  const rangeHeader = request.headers.get("range");
  const ifRange = request.headers.get("if-range");
  // An If-Range naming another ETag (or a date: we have no Last-Modified) asks for the whole file.
  const asked = parseRangeHeader(ifRange === null || ifRange === etag ? rangeHeader : null, file.size);
  if (asked.kind === "refused") {
    headers.delete("content-type");
    headers.delete("content-disposition");
    throw new RangeNotSatisfiable(file.size, Object.fromEntries(headers), asked.reason);
  }
  // A HEAD gets no body at all: Bun keeps the Content-Length set here only when there is no body (or
  // a file), and a bucket would be asked for bytes nobody reads.
  const head = request.method === "HEAD";
  if (asked.kind === "ranges" && asked.ranges.length > 1) {
    const multipart = multipartRanges(asked.ranges, file.size, file.contentType);
    headers.set("content-type", multipart.contentType);
    headers.set("content-length", String(multipart.length));
    const body = head ? null : multipart.stream((span) => streamOf(file.body(span, { plainStream: true })));
    // Like a single range, it counts when it starts the file (an updater's first request).
    const counts = asked.ranges[0]?.start === 0;
    return { response: new Response(body, { status: 206, headers }), counts };
  }
  if (asked.kind === "ranges") {
    const range = asked.ranges[0] as ByteRange;
    headers.set("content-range", `bytes ${range.start}-${range.end}/${file.size}`);
    headers.set("content-length", String(range.end - range.start + 1));
    const body = head ? null : file.body(range, { plainStream: false });
    return { response: new Response(body, { status: 206, headers }), counts: range.start === 0 };
  }
  headers.set("content-length", String(file.size));
  const body = head ? null : file.body(null, { plainStream: rangeHeader !== null });
  return { response: new Response(body, { status: 200, headers }), counts: true };
}

const streamOf = (body: FileBody): ReadableStream<Uint8Array> =>
  body instanceof Blob ? body.stream() : body;

/**
 * Whether a bucket's presigned URL can answer this request's Range as depot would: no Range, or one
 * valid and satisfiable byte range. S3 answers only single ranges (several get the whole object), so
 * a request for several is streamed by depot instead of redirected, and one depot refuses gets
 * depot's 416 JSON rather than the bucket's XML.
 */
export function bucketCanAnswerRange(request: Request, size: number): boolean {
  const header = request.headers.get("range");
  if (header === null) return true;
  return /^bytes=(\d+-\d*|-\d+)$/.test(header.trim()) && parseRangeHeader(header, size).kind === "ranges";
}

/** `attachment; filename="plugin.jar"`, plus `filename*=UTF-8''…` when the name is not plain ASCII. */
export function contentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");
  if (ascii === name) return `attachment; filename="${name}"`;
  const encoded = encodeURIComponent(name).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/** Whether the client already holds the file with this SHA-256 (If-None-Match): the answer is a 304. */
export const alreadyHeld = (request: Request, sha256: string): boolean =>
  matchesEtag(request.headers.get("if-none-match"), etagOf(sha256));

const etagOf = (sha256: string) => `"${sha256}"`;

function matchesEtag(header: string | null, etag: string): boolean {
  if (header === null) return false;
  return header
    .split(",")
    .map((tag) => tag.trim().replace(/^W\//, ""))
    .some((tag) => tag === "*" || tag === etag);
}
