import { expect, test } from "bun:test";
import { join } from "node:path";

/**
 * One rule for a feature's model files (docs/ARCHITECTURE.md, A feature folder): `schemas.ts` holds
 * what comes in (bodies, queries, params), `json.ts` what goes out, each wire shape `XJson` beside its
 * mapper `toXJson`. Read from the source: an exported `…Json` (a schema or its type), `…Data` (a
 * `{ data }` wrapper) or `to…Json`/`to…Data` (a mapper) is a wire shape.
 */
const FEATURES = join(import.meta.dir, "..", "src", "features");

const isWireShape = (name: string) => /Json$|Data$/.test(name);

/** Every exported name of each module of src/features/, by its path under src/features/. */
async function exportsByModule(): Promise<Map<string, string[]>> {
  const modules = new Map<string, string[]>();
  for (const path of new Bun.Glob("**/*.ts").scanSync({ cwd: FEATURES })) {
    const source = await Bun.file(join(FEATURES, path)).text();
    const names = [...source.matchAll(/^export (?:async )?(?:const|function|type|interface|class) (\w+)/gm)];
    modules.set(
      path,
      names.map((match) => match[1] ?? ""),
    );
  }
  return modules;
}

test("no feature's schemas.ts holds a wire shape or its mapper", async () => {
  const misplaced = [...(await exportsByModule())].flatMap(([path, names]) =>
    path.endsWith("/schemas.ts") ? names.filter(isWireShape).map((name) => `${path}: ${name}`) : [],
  );
  expect(misplaced).toEqual([]);
});

test("every wire shape and mapper of a feature is in its json.ts", async () => {
  const elsewhere = [...(await exportsByModule())].flatMap(([path, names]) =>
    path.endsWith("/json.ts") ? [] : names.filter(isWireShape).map((name) => `${path}: ${name}`),
  );
  expect(elsewhere).toEqual([]);
});

test("each mapper toXJson is in the json.ts that holds XJson", async () => {
  const modules = await exportsByModule();
  const home = new Map<string, string>();
  for (const [path, names] of modules)
    for (const name of names) if (!name.startsWith("to")) home.set(name, path);
  const apart = [...modules].flatMap(([path, names]) =>
    names
      .filter((name) => /^to[A-Z]\w*Json$/.test(name))
      .flatMap((mapper) => {
        const shape = mapper.slice(2);
        const shapeHome = home.get(shape);
        return shapeHome === undefined || shapeHome === path
          ? []
          : [`${mapper} (${path}) apart from ${shape} (${shapeHome})`];
      }),
  );
  expect(apart).toEqual([]);
});
