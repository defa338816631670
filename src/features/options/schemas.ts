import { t } from "elysia";
import { BodyId } from "../../http/ids.ts";
import { Int } from "../../http/schemas.ts";

/** A price in the store's currency, up to two decimals. */
export const Price = t.Number({ minimum: 0, maximum: 9_999_999_999.99 });

export const CreateOptionBody = t.Object(
  { name: t.String({ minLength: 1, maxLength: 255 }), price: Price },
  { additionalProperties: false },
);
export type CreateOptionInput = typeof CreateOptionBody.static;

export const OptionJson = t.Object({
  id: Int(),
  product_id: Int(),
  name: t.String(),
  price: t.Number(),
});

export const CreateBenefitBody = t.Object(
  { option_id: BodyId, name: t.String({ minLength: 1, maxLength: 255 }) },
  { additionalProperties: false },
);
export type CreateBenefitInput = typeof CreateBenefitBody.static;

export const BenefitJson = t.Object({
  id: Int(),
  product_id: Int(),
  option_id: Int(),
  name: t.String(),
});
