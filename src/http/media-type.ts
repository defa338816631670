/**
 * A media type as RFC 9110 §8.3.1 writes it: `type/subtype` tokens and `; name=value` parameters
 * (a token or a quoted string). Nothing else may reach a Content-Type header: a CR or LF in a
 * client-supplied type would make every download of the file fail.
 */
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const QUOTED = '"(?:[\\t !#-\\[\\]-~\\x80-\\xff]|\\\\[\\t !-~\\x80-\\xff])*"';
const MEDIA_TYPE = new RegExp(`^${TOKEN}/${TOKEN}(?:[ \\t]*;[ \\t]*${TOKEN}=(?:${TOKEN}|${QUOTED}))*$`);

export const DEFAULT_MEDIA_TYPE = "application/octet-stream";

export const isMediaType = (raw: string): boolean => raw.length <= 255 && MEDIA_TYPE.test(raw);

/** `raw` when it is a valid media type, else the generic binary type (a browser then just saves the file). */
export const mediaTypeOrDefault = (raw: string | null | undefined): string =>
  raw && isMediaType(raw.trim()) ? raw.trim() : DEFAULT_MEDIA_TYPE;
