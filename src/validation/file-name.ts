import { BIDI_CONTROLS } from "./schemas.ts";

/**
 * The name a download is offered under: no directories, no control characters (bidirectional ones
 * included: they would reorder the name in a file manager), at most 255 characters.
 */
export function cleanFileName(raw: string | undefined): string {
  const base = (raw ?? "").split(/[\\/]/).at(-1) ?? "";
  const clean = [...base]
    .filter((c) => c.charCodeAt(0) > 31 && c !== "\u007f" && !BIDI_CONTROLS.test(c))
    .join("")
    .trim()
    .slice(0, 255);
  return clean === "" || clean === "." || clean === ".." ? "file" : clean;
}
