import { Kind } from "@sinclair/typebox";
import type { AnyElysia } from "elysia";

/**
 * Set to `1` by the test suite (tests/setup.ts; servers the tests start inherit it): every answer is
 * checked against its route's response schema, and one that does not match is a 500. `serve` leaves
 * it unset and does not check: the schemas describe the answers in the OpenAPI document, and an
 * answer that breaks one is a bug of ours that the tests catch, not something to pay for on every
 * request (a few µs each, bench/README.md "Round three").
 */
export const CHECK_RESPONSES_VARIABLE = "DEPOT_CHECK_RESPONSES";

export const checkingResponses = (env: Record<string, string | undefined> = process.env): boolean =>
  env[CHECK_RESPONSES_VARIABLE] === "1";

/**
 * Marks the response schemas of every route of `app` as not to be checked (Elysia's `noValidate`,
 * what `t.NoValidate` sets), before any route is compiled. The mark is not enumerable, so the OpenAPI
 * document, which serialises the same schema objects, does not change. Schemas are shared between
 * routes and are module constants: this is for the one app of a process that serves, never for a test
 * process (which checks).
 */
export function skipResponseChecks(app: AnyElysia): void {
  for (const route of app.routes) {
    const response: unknown = route.hooks?.response;
    if (!response || typeof response !== "object") continue;
    if (Kind in response) markUnchecked(response);
    else for (const schema of Object.values(response)) markUnchecked(schema);
  }
}

function markUnchecked(schema: unknown): void {
  if (!schema || typeof schema !== "object") return;
  Object.defineProperty(schema, "noValidate", { value: true, enumerable: false, configurable: true });
}
