import type { TSchema } from "@sinclair/typebox";
import { type ValueError, ValueErrorType } from "@sinclair/typebox/errors";
import { Value } from "@sinclair/typebox/value";
import { FieldErrors, Invalid } from "../errors.ts";
import { BIDI_CONTROLS } from "./schemas.ts";

/**
 * TypeBox's validation issues in Laravel's words ("The title field is required."), for the routes'
 * schemas (through the error renderer) and for the CLI and services checking the same schemas.
 */

/**
 * Checks `value` against a `t.*` schema outside a route (CLI commands use the routes' schemas) and
 * throws the same 422 a route would.
 */
export function assertValid<S extends TSchema>(schema: S, value: unknown): asserts value is S["static"] {
  if (!Value.Check(schema, value)) throw invalidFrom([...Value.Errors(schema, value)], "body");
}

/** TypeBox's issues as one Laravel 422; `where` names the whole value (`body`, `query`). */
export function invalidFrom(issues: ValueError[], where: string): Invalid {
  const errors = new FieldErrors();
  // Like Laravel, one message per field: the first rule it fails.
  for (const issue of issues) {
    const field = fieldName(issue.path, where);
    if (!errors.has(field)) errors.add(field, fieldMessage(issue, field));
  }
  if (errors.isEmpty) errors.add(where, `The ${where} is invalid.`);
  return new Invalid(errors.messages);
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
      if (s.format === "email") return `The ${name} field must be a valid email address.`;
      if (s.format === "plain-text" || s.format === "plain-prose") {
        return typeof issue.value === "string" && BIDI_CONTROLS.test(issue.value)
          ? `The ${name} field must not contain bidirectional control characters.`
          : `The ${name} field must not contain control characters.`;
      }
      return `The ${name} field must be a valid ${s.format}.`;
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
