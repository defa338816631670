/** One part of a `multipart/byteranges` body: its headers (names lower-cased) and its bytes. */
export interface BytePart {
  headers: Record<string, string>;
  bytes: Uint8Array;
}

const CRLF = "\r\n";

/**
 * Parses a `multipart/byteranges` body strictly (RFC 9110 §14.6, RFC 2046 §5.1.1), as the bytes on the
 * wire: the boundary from the Content-Type, the body starting with `--boundary` (electron-updater's
 * splitter reads nothing before it), CRLF `--boundary` between parts, and the closing `--boundary--`
 * CRLF with nothing after it. Each part's length is its Content-Range's, so the check does not depend
 * on the boundary being absent from the file's bytes. Throws on anything else.
 */
export function parseByteranges(contentType: string | null, body: Uint8Array): BytePart[] {
  const match = /^multipart\/byteranges; boundary=([0-9A-Za-z'()+_,./:=?-]{1,70})$/.exec(contentType ?? "");
  if (!match) throw new Error(`not a multipart/byteranges Content-Type: ${contentType}`);
  const delimiter = `--${match[1]}`;
  const text = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const parts: BytePart[] = [];
  let at = expect(text, 0, delimiter);
  while (true) {
    if (text.toString("latin1", at, at + 2) === "--") {
      at = expect(text, at + 2, CRLF);
      if (at !== text.length) throw new Error(`${text.length - at} bytes after the closing delimiter`);
      return parts;
    }
    at = expect(text, at, CRLF);
    const headersEnd = text.indexOf(`${CRLF}${CRLF}`, at, "latin1");
    if (headersEnd === -1) throw new Error("a part's headers never end");
    const headers: Record<string, string> = {};
    for (const line of text.toString("latin1", at, headersEnd).split(CRLF)) {
      const colon = line.indexOf(":");
      if (colon <= 0) throw new Error(`not a header line: ${JSON.stringify(line)}`);
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    const range = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(headers["content-range"] ?? "");
    if (!range) throw new Error(`a part without a byte Content-Range: ${JSON.stringify(headers)}`);
    const length = Number(range[2]) - Number(range[1]) + 1;
    const start = headersEnd + 4;
    if (start + length > text.length) throw new Error("a part is cut short");
    parts.push({ headers, bytes: new Uint8Array(text.subarray(start, start + length)) });
    at = expect(text, expect(text, start + length, CRLF), delimiter);
  }
}

function expect(text: Buffer, at: number, literal: string): number {
  const found = text.toString("latin1", at, at + literal.length);
  if (found !== literal)
    throw new Error(`expected ${JSON.stringify(literal)} at ${at}, found ${JSON.stringify(found)}`);
  return at + literal.length;
}
