import { afterAll, beforeAll, expect, test } from "bun:test";
import { readJson, startTestApp, type TestApp } from "./helpers/app.ts";

/**
 * The operations /docs/json documents, each with the statuses it may answer, against the list
 * committed beside this file. A refactoring of the routes must keep every operation and every
 * documented answer (it may add answers); a new or removed operation updates the list on purpose:
 *   UPDATE_OPENAPI_OPERATIONS=1 bun test tests/openapi-operations.test.ts
 */
const LIST = new URL("./openapi-operations.json", import.meta.url);
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
