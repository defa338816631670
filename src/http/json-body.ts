import { AppError, Invalid, PayloadTooLarge } from "../errors.ts";

/**
 * What a JSON body may hold. Parsing, schema validation and error formatting all walk the value
 * recursively, so a small body nested thousands of levels deep costs seconds and gigabytes (or a
 * stack overflow) unless its shape is refused first, from the text, in one linear pass. depot's
 * deepest real body is two levels; its longest array has 50 items.
 */
export const JSON_LIMITS = { maxDepth: 32, maxItems: 10_000 } as const;

export const NOT_JSON = new AppError(400, "The request body could not be parsed as JSON.");

/** `application/json`, with or without parameters, and the `+json` types (`application/merge-patch+json`). */
export function isJsonType(contentType: string | null): boolean {
  const type = contentType?.split(";", 1)[0]?.trim().toLowerCase() ?? "";
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"));
}

/**
 * Parses a JSON body after checking its depth and element count, and refuses strings holding NUL
 * (PostgreSQL cannot store them) with a 422 naming each field.
 */
export function parseJsonBody(text: string): unknown {
  checkShape(text);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw NOT_JSON;
  }
  // A NUL can only arrive escaped (a raw control character is not valid JSON), so most bodies skip the walk.
  if (text.includes("\\u0000")) {
    const fields = fieldsWithNul(value);
    if (fields.length > 0) throw nulInvalid(fields);
  }
  return value;
}

/** The 422 for fields whose text holds a NUL character. */
export const nulInvalid = (fields: string[]) =>
  new Invalid(
    Object.fromEntries(
      fields.map((field) => [
        field,
        [`The ${field.replaceAll("_", " ")} field must not contain NUL characters.`],
      ]),
    ),
  );

/**
 * One pass over the text: brackets outside strings give the depth, commas the element count. Strings
 * are skipped with `indexOf`, so a long string (a base64 file) costs almost nothing.
 */
function checkShape(text: string): void {
  let depth = 0;
  let items = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      i = endOfString(text, i);
    } else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > JSON_LIMITS.maxDepth) {
        throw new AppError(400, `The request body is nested more than ${JSON_LIMITS.maxDepth} levels deep.`);
      }
    } else if (c === 93 /* ] */ || c === 125 /* } */) {
      depth--;
    } else if (c === 44 /* , */ && ++items > JSON_LIMITS.maxItems) {
      throw new AppError(400, `The request body has more than ${JSON_LIMITS.maxItems} elements.`);
    }
  }
}

/** The index of the quote that closes the string opening at `start` (or the end: JSON.parse then refuses it). */
function endOfString(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  while (end !== -1) {
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === 92 /* \ */) backslashes++;
    if (backslashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
  return text.length;
}

/** Dot paths (`file.filename`, `tags.2`) of every string or key holding a NUL; the depth is already bounded. */
export function fieldsWithNul(value: unknown, path = ""): string[] {
  if (typeof value === "string") return value.includes("\0") ? [path || "body"] : [];
  if (value === null || typeof value !== "object") return [];
  const found: string[] = [];
  for (const [key, item] of Object.entries(value)) {
    const child = path === "" ? key.replaceAll("\0", "") : `${path}.${key.replaceAll("\0", "")}`;
    if (key.includes("\0")) found.push(child || "body");
    else found.push(...fieldsWithNul(item, child));
  }
  return found;
}

/**
 * The body as text, at most `maxBytes`: a declared length over the limit is refused before a byte is
 * read, and the bytes are counted as they arrive, so a chunked body cannot get past the limit either.
 */
export async function readBodyText(request: Request, maxBytes: number): Promise<string> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > maxBytes) throw new PayloadTooLarge();
  // A declared length is enforced by Bun.serve (a body cannot run past it): read it natively.
  if (declared !== null) return request.text();
  if (!request.body) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of request.body) {
    size += chunk.byteLength;
    if (size > maxBytes) throw new PayloadTooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size).toString("utf8");
}
