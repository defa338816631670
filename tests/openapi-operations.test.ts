import { afterAll, beforeAll, expect, test } from "bun:test";
import { readJson, startTestApp, type TestApp } from "./helpers/app.ts";

/**
 * The operations /docs/json documents, each with the statuses it may answer, against the list
 * committed beside this file. A refactoring of the routes must keep every operation and every
 * documented answer (it may add answers); a new or removed operation updates the list on purpose:
 *   UPDATE_OPENAPI_OPERATIONS=1 bun test tests/openapi-operations.test.ts
 */
const LIST = new URL("./openapi-operations.json", import.meta.url);
/**
 * The whole document, held to the copy committed beside this file: a change of code that is not meant
 * to change the API (a refactoring, a moved file) must leave every byte of it as it was. When the
 * document changes on purpose (a route, a schema, a summary), regenerate the copy and read its diff:
 *   UPDATE_OPENAPI_DOCUMENT=1 bun test tests/openapi-operations.test.ts
 *   npx biome check --write tests/openapi-document.json
 */
const DOCUMENT = new URL("./openapi-document.json", import.meta.url);
type Operations = Record<string, string[]>;

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

async function documented(): Promise<Operations> {
  const document = await readJson(await t.request("/docs/json"));
  const operations: Operations = {};
  for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, unknown>>)) {
    for (const [method, operation] of Object.entries(methods)) {
      const responses = (operation as { responses?: Record<string, unknown> }).responses ?? {};
      operations[`${method.toUpperCase()} ${path}`] = Object.keys(responses).sort();
    }
  }
  return Object.fromEntries(Object.entries(operations).sort(([a], [b]) => a.localeCompare(b)));
}

test("every committed operation is documented, with at least its committed answers", async () => {
  const now = await documented();
  if (process.env.UPDATE_OPENAPI_OPERATIONS) await Bun.write(LIST, `${JSON.stringify(now, null, 2)}\n`);
  const committed = (await Bun.file(LIST).json()) as Operations;
  expect(Object.keys(now)).toEqual(Object.keys(committed));
  const lost = Object.entries(committed).flatMap(([operation, statuses]) =>
    statuses.filter((status) => !now[operation]?.includes(status)).map((status) => `${operation} ${status}`),
  );
  expect(lost).toEqual([]);
});

/** JSON with every object's keys in order, two spaces a level: the same document, the same bytes. */
function stable(value: unknown): string {
  const sorted = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sorted)
      : v !== null && typeof v === "object"
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((key) => [key, sorted((v as Record<string, unknown>)[key])]),
          )
        : v;
  return `${JSON.stringify(sorted(value), null, 2)}\n`;
}

/** The document a freshly started depot serves, from a process of its own (the helper says why). */
async function freshDocument(): Promise<unknown> {
  const child = Bun.spawn(
    [process.execPath, new URL("./helpers/openapi-document.ts", import.meta.url).pathname],
    {
      env: process.env,
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  const [text, errors, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  expect({ code, errors }).toEqual({ code: 0, errors: "" });
  return JSON.parse(text);
}

// Its process starts depot from nothing: on the embedded database that is an initdb, seconds on a
// quiet machine and far more on a busy one.
test("the document is the committed one, byte for byte", async () => {
  const now = stable(await freshDocument());
  if (process.env.UPDATE_OPENAPI_DOCUMENT) await Bun.write(DOCUMENT, now);
  const committed = stable(await Bun.file(DOCUMENT).json());
  // The first lines that differ, with a few around them, rather than two 250 kB strings.
  const nowLines = now.split("\n");
  const committedLines = committed.split("\n");
  const first = nowLines.findIndex((line, i) => line !== committedLines[i]);
  if (first !== -1 || nowLines.length !== committedLines.length) {
    const at = first === -1 ? Math.min(nowLines.length, committedLines.length) : first;
    const around = (lines: string[]) => lines.slice(Math.max(0, at - 3), at + 4).join("\n");
    expect({ line: at + 1, served: around(nowLines) }).toEqual({
      line: at + 1,
      served: around(committedLines),
    });
  }
  expect(now === committed).toBe(true);
}, 120_000);
