/**
 * The path of a request URL (`http://host:port/api/x?y` → `/api/x`), cut from the string rather than
 * parsed: hooks that run on every request use it, license validations included.
 */
export function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "/";
  const end = url.slice(start).search(/[?#]/);
  return end === -1 ? url.slice(start) : url.slice(start, start + end);
}
