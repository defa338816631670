import { t } from "elysia";
import type { FieldMessages } from "../../errors.ts";
import { BodyId } from "../../validation/ids.ts";
import { Text } from "../../validation/schemas.ts";

/** A price: at most two decimals (checked by `centsError`, since `multipleOf: 0.01` fails on floats). */
export const Price = t.Number({ minimum: 0, maximum: 9_999_999_999.99 });

/** Laravel's `decimal:0,2`: 19.999 is refused rather than silently rounded. */
export function centsError(field: string, value: number | undefined): FieldMessages {
  if (value === undefined || Number.isInteger(Math.round(value * 100 * 1e6) / 1e6)) return {};
  return { [field]: [`The ${field.replaceAll("_", " ")} field must have 0-2 decimal places.`] };
}

export const CreateOptionBody = t.Object(
  { name: Text({ minLength: 1, maxLength: 255 }), price: Price },
  { additionalProperties: false },
);
export type CreateOptionInput = typeof CreateOptionBody.static;

export const CreateBenefitBody = t.Object(
  { option_id: BodyId, name: Text({ minLength: 1, maxLength: 255 }) },
  { additionalProperties: false },
);
export type CreateBenefitInput = typeof CreateBenefitBody.static;
