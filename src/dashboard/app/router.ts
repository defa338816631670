// The smallest router the dashboard needs: the path is the state, links push history entries, and
// Back/Forward re-render. The server answers the same HTML at every dashboard path (../routes.ts).
import { useEffect, useState } from "preact/hooks";

const listeners = new Set<() => void>();

export function navigate(path: string, { replace = false } = {}): void {
  if (path === location.pathname) return;
  if (replace) history.replaceState(null, "", path);
  else history.pushState(null, "", path);
  for (const listener of listeners) listener();
}

/** The current path; the component re-renders when it changes. */
export function usePath(): string {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const update = () => setPath(location.pathname);
    listeners.add(update);
    addEventListener("popstate", update);
    return () => {
      listeners.delete(update);
      removeEventListener("popstate", update);
    };
  }, []);
  return path;
}

/**
 * The path's parameters if it matches `pattern` (`/dashboard/products/:product`), else null. A
 * parameter matches one non-empty segment, decoded.
 */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split("/");
  const have = path.replace(/\/+$/, "").split("/");
  if (path === "/") have.push("");
  if (want.length !== have.length) return null;
  const params: Record<string, string> = {};
  for (const [index, segment] of want.entries()) {
    const actual = have[index] ?? "";
    if (segment.startsWith(":")) {
      if (!actual) return null;
      try {
        params[segment.slice(1)] = decodeURIComponent(actual);
      } catch {
        return null;
      }
    } else if (segment !== actual) return null;
  }
  return params;
}
