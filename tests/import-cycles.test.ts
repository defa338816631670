import { expect, test } from "bun:test";
import { dirname, join, relative } from "node:path";

/**
 * No two modules of src/ import each other's values, however long the way round: a loop decides the
 * order modules initialise in by accident, and a feature that reaches back up into one that imports
 * it is a feature with two homes. Type-only imports (`import type`, or every binding marked `type`)
 * do not count: they are erased before anything runs (tsconfig's verbatimModuleSyntax makes every
 * type import say so), and Bun's own scanner leaves them out.
 *
 * A walk of our own over Bun.Transpiler#scanImports rather than madge or dependency-cruiser: this is
 * the whole check, and either tool would add a large dev tree (and its own TypeScript parser) for it.
 */
const SRC = join(import.meta.dir, "..", "src");

const scanners = {
  ts: new Bun.Transpiler({ loader: "ts" }),
  tsx: new Bun.Transpiler({ loader: "tsx" }),
};

/** Each source module of src/ (by its path under src/) and the modules of src/ whose values it imports. */
async function importGraph(): Promise<Map<string, string[]>> {
  const files = [...new Bun.Glob("**/*.{ts,tsx}").scanSync({ cwd: SRC })].filter((f) => !f.endsWith(".d.ts"));
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    // The scanner reads a module, not a script: a `#!` line (src/main.ts) would stop it.
    const source = (await Bun.file(join(SRC, file)).text()).replace(/^#!.*/, "");
    const imports = scanners[file.endsWith(".tsx") ? "tsx" : "ts"].scanImports(source);
    graph.set(
      file,
      imports
        .filter(({ path }) => path.startsWith("."))
        .map(({ path }) => relative(SRC, join(SRC, dirname(file), path)))
        .filter((path) => known.has(path)),
    );
  }
  return graph;
}

/** One loop through each tangle of modules (Tarjan's strongly connected components), as `a → b → a`. */
function cycles(graph: Map<string, string[]>): string[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const tangles: string[][] = [];
  const visit = (module: string) => {
    index.set(module, index.size);
    low.set(module, index.get(module) ?? 0);
    stack.push(module);
    for (const next of graph.get(module) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(module, Math.min(low.get(module) ?? 0, low.get(next) ?? 0));
      } else if (stack.includes(next)) {
        low.set(module, Math.min(low.get(module) ?? 0, index.get(next) ?? 0));
      }
    }
    if (low.get(module) !== index.get(module)) return;
    const tangle: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member) tangle.push(member);
    } while (member && member !== module);
    if (tangle.length > 1 || graph.get(module)?.includes(module)) tangles.push(tangle);
  };
  for (const module of [...graph.keys()].sort()) if (!index.has(module)) visit(module);
  return tangles.map((tangle) => shortestLoop(graph, new Set(tangle)).join(" → "));
}

/** The shortest way from a tangle's first module (by name) back to itself, inside the tangle. */
function shortestLoop(graph: Map<string, string[]>, tangle: Set<string>): string[] {
  const start = [...tangle].sort()[0] ?? "";
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const module = queue.shift() ?? "";
    for (const next of graph.get(module) ?? []) {
      if (!tangle.has(next)) continue;
      if (next === start) {
        const way: string[] = [];
        for (let at: string | undefined = module; at && at !== start; at = cameFrom.get(at)) way.unshift(at);
        return [start, ...way, start];
      }
      if (!cameFrom.has(next)) {
        cameFrom.set(next, module);
        queue.push(next);
      }
    }
  }
  return [start];
}

test("no module of src/ imports a value from a module that imports it, directly or round a loop", async () => {
  expect(cycles(await importGraph())).toEqual([]);
});

test("the walk names each loop it finds, by the shortest way round", () => {
  const graph = new Map([
    ["a.ts", ["b.ts"]],
    ["b.ts", ["c.ts", "d.ts"]],
    ["c.ts", ["a.ts"]],
    ["d.ts", ["b.ts"]],
    ["e.ts", ["e.ts"]],
    ["f.ts", ["a.ts"]],
  ]);
  expect(cycles(graph).sort()).toEqual(["a.ts → b.ts → c.ts → a.ts", "e.ts → e.ts"]);
});

/**
 * Dependencies point one way (docs/ARCHITECTURE.md): the HTTP kit and the layers beneath the features
 * import no feature, and the CLI's HTTP client nothing of the server or of the CLI.
 */
test.each([
  ["http/", ["features/"]],
  ["db/", ["features/", "http/"]],
  ["jobs/", ["features/", "http/"]],
  ["storage/", ["features/", "http/"]],
  ["validation/", ["features/", "http/"]],
  ["metrics/", ["features/"]],
  ["cli-client/", ["features/", "http/", "db/", "cli/"]],
])("%s imports no value from %p", async (layer, above) => {
  const graph = await importGraph();
  const wrongWay = [...graph].flatMap(([module, imports]) =>
    module.startsWith(layer)
      ? imports
          .filter((path) => above.some((dir) => path.startsWith(dir)))
          .map((path) => `${module} → ${path}`)
      : [],
  );
  expect(wrongWay).toEqual([]);
});
