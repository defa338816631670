import { describe, expect, test } from "bun:test";
import { openapi } from "@elysiajs/openapi";
import { Elysia, t as types } from "elysia";
import { errorRenderer } from "../src/http/error-renderer.ts";
import {
  CHECK_RESPONSES_VARIABLE,
  checkingResponses,
  skipResponseChecks,
} from "../src/http/response-checks.ts";
import { createLogger } from "../src/log.ts";
import { readJson } from "./helpers/app.ts";

/**
 * `serve` does not check its answers against the routes' response schemas; the test suite does, for
 * every answer of every app and server it starts (tests/setup.ts sets DEPOT_CHECK_RESPONSES=1).
 */

/** An app shaped as depot's (the error renderer first, a plugin with a group) with one wrong answer. */
function wrongAnswerApp() {
  const Answer = types.Object({ name: types.String() });
  const feature = new Elysia({ name: "wrong" }).group("/api", (group) =>
    group
      // biome-ignore lint/suspicious/noExplicitAny: the deliberately wrong answer
      .get("/wrong", () => ({ name: 42 }) as any, { response: { 200: Answer } })
      .get("/right", () => ({ name: "ok" }), { response: Answer }),
  );
  return new Elysia({ normalize: false })
    .use(errorRenderer({ log: createLogger("silent"), allowedMethods: () => [] }))
    .use(openapi({ path: "/docs" }))
    .use(feature);
}

const get = (app: { handle(request: Request): Promise<Response> }, path: string) =>
  app.handle(new Request(`http://localhost${path}`));

test("the test suite checks answers: this process has DEPOT_CHECK_RESPONSES=1", () => {
  expect(process.env[CHECK_RESPONSES_VARIABLE]).toBe("1");
  expect(checkingResponses()).toBe(true);
  expect(checkingResponses({})).toBe(false);
  expect(checkingResponses({ [CHECK_RESPONSES_VARIABLE]: "0" })).toBe(false);
});

test("checked (the tests): an answer that breaks its schema is a 500, a right one passes", async () => {
  const app = wrongAnswerApp();
  const wrong = await get(app, "/api/wrong");
  expect(wrong.status).toBe(500);
  expect(wrong.headers.get("content-type")).toContain("application/json");
  expect(await readJson(wrong)).toEqual({ message: "Server Error." });
  const right = await get(app, "/api/right");
  expect(right.status).toBe(200);
  expect(await readJson(right)).toEqual({ name: "ok" });
});

test("not checked (serve): the same wrong answer goes out as the handler made it", async () => {
  const app = wrongAnswerApp();
  skipResponseChecks(app);
  const wrong = await get(app, "/api/wrong");
  expect(wrong.status).toBe(200);
  expect(await readJson(wrong)).toEqual({ name: 42 });
});

test("skipping the checks leaves the OpenAPI document as it was", async () => {
  const checked = await readJson(await get(wrongAnswerApp(), "/docs/json"));
  const unchecked = wrongAnswerApp();
  skipResponseChecks(unchecked);
  const document = await readJson(await get(unchecked, "/docs/json"));
  expect(JSON.stringify(document)).toBe(JSON.stringify(checked));
  expect(document.paths["/api/wrong"].get.responses["200"].content["application/json"].schema).toEqual({
    type: "object",
    properties: { name: { type: "string" } },
    required: ["name"],
  });
});

describe("depot's own app", () => {
  test("as `serve` builds it, every route's response schemas are unchecked and documented the same", async () => {
    // In a process of its own: the schemas are module constants shared with every app of a process.
    const script = `
      import { startTestApp } from ${JSON.stringify(new URL("./helpers/app.ts", import.meta.url).pathname)};
      const t = await startTestApp();
      let checked = 0, unchecked = 0;
      for (const route of t.app.routes) {
        const response = route.hooks?.response;
        if (!response || typeof response !== "object") continue;
        const schemas = Symbol.for("TypeBox.Kind") in response ? [response] : Object.values(response);
        for (const schema of schemas) schema.noValidate === true ? unchecked++ : checked++;
      }
      const document = await (await t.request("/docs/json")).text();
      await t.close();
      console.log(JSON.stringify({ checked, unchecked, document }));
    `;
    const env: Record<string, string | undefined> = { ...process.env };
    delete env[CHECK_RESPONSES_VARIABLE];
    // A child of its own starts its own database (PGlite without TEST_DATABASE_URL): slow on a busy machine.
    const child = Bun.spawn([process.execPath, "-e", script], { env, stdout: "pipe", stderr: "pipe" });
    const [stdout, stderr, exitCode] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ]);
    expect(stderr).toBe("");
    expect(exitCode).toBe(0);
    const lines = stdout.trim().split("\n");
    const result = JSON.parse(lines[lines.length - 1] ?? "{}");
    expect(result.checked).toBe(0);
    expect(result.unchecked).toBeGreaterThan(100);
    // The document of record, as a fresh process serves it with checks on (openapi-operations.test.ts):
    // not this process's, whose shared schemas the validators other test files compiled have changed.
    const committed = await Bun.file(new URL("./openapi-document.json", import.meta.url)).json();
    expect(JSON.parse(result.document)).toEqual(committed);
  }, 180_000);
});
