import type { TSchema } from "@sinclair/typebox";
import type { AppContext } from "../context.ts";
import { type FieldMessages, Invalid } from "../errors.ts";

/**
 * The checks of a request body that need more than its schema: an id must name a row, an e-mail be
 * free. A service runs them once its schema passed. When the schema fails, the error renderer runs
 * them too, on the fields that passed it, so one 422 names every failing field as Laravel's validator
 * does, instead of stopping at the first stage that failed.
 */
export type BodyCheck = (ctx: AppContext, fields: Record<string, unknown>) => Promise<unknown>;

const checks = new WeakMap<TSchema, BodyCheck>();

/** Registers `check` (throwing Invalid) as the rest of `schema`'s validation. */
export function checkBodyWith(schema: TSchema, check: BodyCheck): void {
  checks.set(schema, check);
}

/**
 * The field errors the registered check finds among the fields of `body` that the schema accepted
 * (`failed` holds the fields the schema refused). Anything but an Invalid is not the client's
 * problem and is left to the service that would have met it.
 */
export async function remainingFieldErrors(
  ctx: AppContext,
  schema: TSchema,
  body: unknown,
  failed: Set<string>,
): Promise<FieldMessages> {
  const check = checks.get(schema);
  if (!check || typeof body !== "object" || body === null || Array.isArray(body)) return {};
  const accepted = Object.fromEntries(Object.entries(body).filter(([field]) => !failed.has(field)));
  try {
    await check(ctx, accepted);
    return {};
  } catch (error) {
    return error instanceof Invalid ? error.errors : {};
  }
}
