import type { Static, TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import type { AppContext } from "../context.ts";
import { type FieldMessages, Invalid } from "../errors.ts";
import { invalidFrom } from "./messages.ts";

/**
 * An input and everything it must satisfy: its schema, and the rules a schema cannot say (an id must
 * name a row, an e-mail be free), which throw Invalid. Checked where the input enters (a route's
 * `...input(form)`, a CLI command), every failing field in one 422, as PocketBase's form.validate().
 */
export interface Form<S extends TSchema = TSchema> {
  readonly schema: S;
  readonly rules: (ctx: AppContext, fields: Partial<Static<S>>) => Promise<unknown>;
}

export const form = <S extends TSchema>(schema: S, rules: Form<S>["rules"]): Form<S> => ({ schema, rules });

/**
 * Checks `value` against the form: the schema first, then the rules over the fields the schema
 * accepted, so one 422 names every failing field (the rules say nothing of a field already refused).
 */
export async function validateForm<S extends TSchema>(
  ctx: AppContext,
  { schema, rules }: Form<S>,
  value: unknown,
): Promise<Static<S>> {
  const shape: FieldMessages = Value.Check(schema, value)
    ? {}
    : invalidFrom([...Value.Errors(schema, value)], "body").errors;
  const refused = new Set(Object.keys(shape).map((field) => field.split(".")[0] ?? field));
  if (refused.has("body") || typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new Invalid(shape);
  }
  const accepted = Object.fromEntries(Object.entries(value).filter(([field]) => !refused.has(field)));
  const more = await rules(ctx, accepted as Partial<Static<S>>).then(
    () => ({}),
    (error: unknown) => {
      if (error instanceof Invalid) return error.errors;
      throw error;
    },
  );
  const errors = inSchemaOrder(schema, { ...shape, ...withoutFields(more, refused) });
  if (Object.keys(errors).length > 0) throw new Invalid(errors);
  return value as Static<S>;
}

/**
 * The fields in the order the schema lists them, as Laravel lists its rules: the 422's message names
 * the first, whether the schema or a rule refused it (`ownerId` missing is a rule of a license).
 */
function inSchemaOrder(schema: TSchema, errors: FieldMessages): FieldMessages {
  const order = Object.keys((schema as { properties?: object }).properties ?? {});
  const rank = (field: string) => {
    const index = order.indexOf(field.split(".")[0] ?? field);
    return index === -1 ? order.length : index;
  };
  return Object.fromEntries(Object.entries(errors).sort(([a], [b]) => rank(a) - rank(b)));
}

const withoutFields = (errors: FieldMessages, fields: Set<string>): FieldMessages =>
  Object.fromEntries(Object.entries(errors).filter(([field]) => !fields.has(field.split(".")[0] ?? field)));
