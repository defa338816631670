import type { TSchema } from "@sinclair/typebox";
import { type DocumentDecoration, t } from "elysia";

/** `{ message }`: every error body. */
export const MessageJson = t.Object({ message: t.String() });

/** `{ message, errors: { field: [messages] } }`: a 422. */
export const ValidationJson = t.Object({
  message: t.String(),
  errors: t.Record(t.String(), t.Array(t.String())),
});

/** `{ data: T }`, Laravel's resource wrapper. */
export const dataOf = <T extends Parameters<typeof t.Object>[0][string]>(item: T) => t.Object({ data: item });

/**
 * The refusals a route may answer besides its guard's (the auth macros document 401, 403 and 419
 * themselves; a route that checks its caller itself names 401 and 403), by status: a route spreads
 * `...refusals(404, 422)` into its response map, so each status has one shape, written here once.
 */
const REFUSALS = {
  400: MessageJson,
  401: MessageJson,
  403: MessageJson,
  404: MessageJson,
  405: MessageJson,
  409: MessageJson,
  410: MessageJson,
  412: MessageJson,
  413: MessageJson,
  415: MessageJson,
  422: ValidationJson,
  429: MessageJson,
  // tus's checksum extension: the bytes did not arrive as sent.
  460: MessageJson,
  503: MessageJson,
  507: MessageJson,
};

export function refusals<S extends keyof typeof REFUSALS>(...statuses: S[]): Pick<typeof REFUSALS, S> {
  return Object.fromEntries(statuses.map((status) => [status, REFUSALS[status]])) as Pick<typeof REFUSALS, S>;
}

/** What a guard answers when the caller is unknown (401), not allowed (403) or a session lacks its CSRF token (419). */
export const guardRefusals = { 401: MessageJson, 403: MessageJson, 419: MessageJson };

/**
 * A route's entry in the document, spread into its options: `...answers("Read a license", { 200: LicenseJson }, 404)`
 * documents the summary, the success shapes and the refusals by status (each with its one shape above).
 * A string is the summary; an object adds a description or overrides the instance's tags.
 */
export function answers<R extends Record<number, TSchema>, S extends keyof typeof REFUSALS = never>(
  detail: string | DocumentDecoration,
  success: R,
  ...statuses: S[]
) {
  return {
    detail: typeof detail === "string" ? { summary: detail } : detail,
    response: { ...success, ...refusals(...statuses) } as R & Pick<typeof REFUSALS, S>,
  };
}

/** 204: what a handler answers once its work is done and there is nothing to say. */
export const noContent = async (work: Promise<unknown>) => {
  await work;
  return new Response(null, { status: 204 });
};

/** A TypeBox schema as the plain JSON Schema object an OpenAPI document holds. */
export const plainSchema = (schema: TSchema) => JSON.parse(JSON.stringify(schema));
