import type { TSchema } from "@sinclair/typebox";
import { type ValueError, ValueErrorType } from "@sinclair/typebox/errors";
import { Value } from "@sinclair/typebox/value";
import { Elysia, type ValidationError } from "elysia";
import type { Logger } from "../log.ts";
import { errorFields } from "../log-errors.ts";
import { requestIdOf } from "./request-id.ts";

/**
 * Domain errors. Services throw these; `errorRenderer` turns them into the Laravel bodies the
 * README's HTTP API section shows. No handler builds an error body by hand.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  body(): Record<string, unknown> {
    return { message: this.message };
  }
}

export class Unauthenticated extends HttpError {
  constructor(message = "Unauthenticated.", scheme = "Bearer") {
    super(401, message, { "www-authenticate": scheme });
  }
}

export class Forbidden extends HttpError {
  constructor(message = "This action is unauthorized.") {
    super(403, message);
  }
}

/** `new NotFound("Product")` → 404 `{"message":"Product not found."}` */
export class NotFound extends HttpError {
  constructor(thing = "Resource") {
    super(404, `${thing} not found.`);
  }
}

export class PayloadTooLarge extends HttpError {
  constructor(message = "The request body is too large.") {
    super(413, message);
  }
}

export class TooManyAttempts extends HttpError {
  constructor(retryAfterSeconds?: number) {
    super(429, "Too Many Attempts.", retryAfterSeconds ? { "retry-after": String(retryAfterSeconds) } : {});
  }
}

export type FieldErrors = Record<string, string[]>;

/** 422 with Laravel's summary message: the first error, then "(and N more errors)". */
export class Invalid extends HttpError {
  constructor(readonly errors: FieldErrors) {
    super(422, summarise(errors));
  }

  override body() {
    return { message: this.message, errors: this.errors };
  }
}

/**
 * Runs independent checks and reports every failing field in one 422, as Laravel's validator does,
 * instead of stopping at the first check that throws.
 */
export async function validateAll<T extends unknown[]>(
  ...checks: { [K in keyof T]: () => T[K] | Promise<T[K]> }
): Promise<T> {
  const settled = await Promise.allSettled(checks.map(async (check) => check()));
  const errors: FieldErrors = {};
  for (const result of settled) {
    if (result.status === "fulfilled") continue;
    if (!(result.reason instanceof Invalid)) throw result.reason;
    Object.assign(errors, result.reason.errors);
  }
  if (Object.keys(errors).length > 0) throw new Invalid(errors);
  return settled.map((result) => (result as PromiseFulfilledResult<unknown>).value) as T;
}

function summarise(errors: FieldErrors): string {
  const messages = Object.values(errors).flat();
  const [first = "The given data was invalid."] = messages;
  const more = messages.length - 1;
  if (more <= 0) return first;
  return `${first} (and ${more} more error${more === 1 ? "" : "s"})`;
}

interface RendererOptions {
  log: Logger;
  /** Methods served at `path` by some route; a non-empty answer turns a 404 into a 405. */
  allowedMethods(path: string): string[];
  /** The body's other failing fields, by the checks registered for its schema (body-checks.ts). */
  remainingFieldErrors?(schema: TSchema, body: unknown, failed: Set<string>): Promise<FieldErrors>;
}

/** The single place where failures become responses. Registered globally, first in the app. */
export const errorRenderer = ({ log, allowedMethods, remainingFieldErrors }: RendererOptions) =>
  new Elysia({ name: "http.errors" }).onError(
    { as: "global" },
    async ({ code, error, request, path, set }) => {
      const render = (failure: HttpError) => {
        set.status = failure.status; // what the request log reports
        return Response.json(failure.body(), { status: failure.status, headers: failure.headers });
      };
      if (error instanceof HttpError) return render(error);
      switch (code) {
        case "VALIDATION": {
          // A response that fails its own schema is our bug, not the client's.
          if (error.type === "response") break;
          const failure = validationFailure(error);
          if (error.type === "body" && failure instanceof Invalid && remainingFieldErrors) {
            const failed = new Set(Object.keys(failure.errors).map((field) => field.split(".")[0] ?? field));
            const { validator } = error as { validator: { schema?: TSchema } };
            const others = validator.schema
              ? await remainingFieldErrors(validator.schema, error.value, failed)
              : {};
            return render(new Invalid({ ...failure.errors, ...withoutFields(others, failed) }));
          }
          return render(failure);
        }
        case "PARSE":
          // Our body parser's own refusals (413, 415, depth, NUL) arrive wrapped in Elysia's ParseError.
          if (error.cause instanceof HttpError) return render(error.cause);
          return render(new HttpError(400, "The request body could not be parsed as JSON."));
        case "NOT_FOUND": {
          const allowed = allowedMethods(path);
          if (allowed.length > 0) {
            return render(
              new HttpError(405, `The ${request.method} method is not supported for this route.`, {
                allow: allowed.join(", "),
              }),
            );
          }
          return render(new NotFound("Route"));
        }
      }
      log.error("request failed", {
        request_id: requestIdOf(request),
        method: request.method,
        path,
        error: errorFields(error),
      });
      return render(new HttpError(500, "Server Error."));
    },
  );

const withoutFields = (errors: FieldErrors, fields: Set<string>): FieldErrors =>
  Object.fromEntries(Object.entries(errors).filter(([field]) => !fields.has(field.split(".")[0] ?? field)));

/** Translates Elysia/TypeBox validation output into Laravel field messages. */
export function validationFailure(error: Readonly<ValidationError>): HttpError {
  // A path segment that cannot be an id names nothing that exists.
  if (error.type === "params") return new NotFound();
  return invalidFrom(
    error.all.filter((issue): issue is ValueError & typeof issue => "path" in issue),
    error.type,
  );
}

/**
 * Checks `value` against a `t.*` schema outside a route (CLI commands use the routes' schemas) and
 * throws the same 422 a route would.
 */
export function assertValid<S extends TSchema>(schema: S, value: unknown): asserts value is S["static"] {
  if (!Value.Check(schema, value)) throw invalidFrom([...Value.Errors(schema, value)], "body");
}

function invalidFrom(issues: ValueError[], where: string): Invalid {
  const errors: FieldErrors = {};
  for (const issue of issues) {
    const field = fieldName(issue.path, where);
    // Like Laravel, one message per field: the first rule it fails.
    if (!errors[field]) errors[field] = [fieldMessage(issue, field)];
  }
  if (Object.keys(errors).length === 0) errors[where] = [`The ${where} is invalid.`];
  return new Invalid(errors);
}

/** A nullable or id-like field (`integer | "digits" | null`) is described by its main type. */
function unionMessage(schema: Record<string, unknown>, name: string): string {
  const members = (schema.anyOf ?? []) as Record<string, unknown>[];
  const main = members.find((member) => member.type !== "null");
  if (main?.anyOf) return unionMessage(main, name);
  switch (main?.type) {
    case "integer":
      return `The ${name} field must be an integer.`;
    case "number":
      return `The ${name} field must be a number.`;
    case "boolean":
      return `The ${name} field must be true or false.`;
    case "array":
      return `The ${name} field must be an array.`;
    case "string":
      return main.const === undefined
        ? `The ${name} field must be a string.`
        : `The selected ${name} is invalid.`;
    default:
      return `The selected ${name} is invalid.`;
  }
}

/** "/file/content" → "file.content" (Laravel's dot notation); the whole body → "body". */
function fieldName(path: string, where: string): string {
  const dotted = path.split("/").filter(Boolean).join(".");
  return dotted === "" ? where : dotted;
}

function fieldMessage(issue: ValueError, field: string): string {
  const s = issue.schema as Record<string, unknown>;
  if (typeof s.error === "string") return s.error;
  const name = field.replaceAll("_", " ").replaceAll(".", " ");
  switch (issue.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return `The ${name} field is required.`;
    case ValueErrorType.ObjectAdditionalProperties:
      return `The ${name} field is prohibited.`;
    case ValueErrorType.Object:
      return field === "body"
        ? "The request body must be a JSON object."
        : `The ${name} field must be an object.`;
    case ValueErrorType.String:
      return issue.value === undefined
        ? `The ${name} field is required.`
        : `The ${name} field must be a string.`;
    case ValueErrorType.StringMinLength:
      return s.minLength === 1
        ? `The ${name} field is required.`
        : `The ${name} field must be at least ${s.minLength} characters.`;
    case ValueErrorType.StringMaxLength:
      return `The ${name} field must not be greater than ${s.maxLength} characters.`;
    case ValueErrorType.StringFormat:
      return s.format === "email"
        ? `The ${name} field must be a valid email address.`
        : `The ${name} field must be a valid ${s.format}.`;
    case ValueErrorType.StringPattern:
      return `The ${name} field format is invalid.`;
    case ValueErrorType.Integer:
      return `The ${name} field must be an integer.`;
    case ValueErrorType.Number:
      return `The ${name} field must be a number.`;
    case ValueErrorType.Boolean:
      return `The ${name} field must be true or false.`;
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.NumberMinimum:
      return `The ${name} field must be at least ${s.minimum}.`;
    case ValueErrorType.IntegerMaximum:
    case ValueErrorType.NumberMaximum:
      return `The ${name} field must not be greater than ${s.maximum}.`;
    case ValueErrorType.Array:
      return `The ${name} field must be an array.`;
    case ValueErrorType.ArrayMaxItems:
      return `The ${name} field must not have more than ${s.maxItems} items.`;
    case ValueErrorType.ArrayMinItems:
      return `The ${name} field must have at least ${s.minItems} items.`;
    case ValueErrorType.ArrayUniqueItems:
      return `The ${name} field has a duplicate value.`;
    case ValueErrorType.Union:
      return unionMessage(s, name);
    default:
      return `The selected ${name} is invalid.`;
  }
}
