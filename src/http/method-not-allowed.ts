interface RouteLike {
  method: string;
  path: string;
}

const patterns = new WeakMap<readonly RouteLike[], { method: string; pattern: RegExp }[]>();

/**
 * The methods some route serves at `path`. Elysia answers a known path with an unknown method as a
 * plain 404; Laravel (and HTTP) say 405 with `Allow`, which tells a client it got the method wrong.
 */
export function methodsAllowedAt(routes: readonly RouteLike[], path: string): string[] {
  let compiled = patterns.get(routes);
  if (!compiled) {
    compiled = routes.map((route) => ({ method: route.method, pattern: toPattern(route.path) }));
    patterns.set(routes, compiled);
  }
  const methods = new Set(compiled.filter((r) => r.pattern.test(path)).map((r) => r.method));
  if (methods.has("GET")) methods.add("HEAD");
  return [...methods].filter((m) => m !== "ALL").sort();
}

function toPattern(path: string): RegExp {
  const source = path
    .split("/")
    .map((segment) =>
      segment === "*"
        ? ".*"
        : segment.startsWith(":")
          ? "[^/]+"
          : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"),
    )
    .join("/");
  return new RegExp(`^${source}/?$`);
}
