import { basename } from "node:path";

/**
 * The file name in a Content-Disposition header (`filename*=UTF-8''…` preferred over `filename="…"`),
 * reduced to a plain name: a server must not be able to write outside the directory it is saved in.
 * Null when there is none, or nothing usable is left.
 */
export function fileNameOf(header: string | null): string | null {
  if (header === null) return null;
  const extended = /filename\*\s*=\s*UTF-8''([^;\s]+)/i.exec(header)?.[1];
  const quoted = /filename\s*=\s*"((?:[^"\\]|\\.)*)"/i.exec(header)?.[1]?.replace(/\\(.)/g, "$1");
  const plain = quoted ?? /filename\s*=\s*([^;"\s]+)/i.exec(header)?.[1];
  return safeFileName(extended === undefined ? plain : (percentDecoded(extended) ?? plain));
}

const percentDecoded = (text: string) => {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
};

/**
 * `name` as one path segment: no directories (a backslash counts as a separator too, as it would on
 * Windows), no control characters, not `.` or `..`.
 */
export function safeFileName(name: string | undefined): string | null {
  if (name === undefined) return null;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
  const segment = basename(name.replaceAll("\\", "/")).replace(/[\u0000-\u001f\u007f]/g, "");
  return segment === "" || segment === "." || segment === ".." ? null : segment;
}

/** The SHA-256 in a `Repr-Digest: sha-256=:<base64>:` header, as lowercase hex; null without one. */
export function sha256OfReprDigest(header: string | null): string | null {
  const base64 =
    header === null ? undefined : /(?:^|,)\s*sha-256=:([A-Za-z0-9+/]+={0,2}):/i.exec(header)?.[1];
  if (base64 === undefined) return null;
  const bytes = Buffer.from(base64, "base64");
  return bytes.length === 32 ? bytes.toString("hex") : null;
}
