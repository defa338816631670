import { t } from "elysia";
import { PageQuery } from "../../http/pagination.ts";
import { BodyId, IdParam } from "../../validation/ids.ts";
import { Int, Prose, Text } from "../../validation/schemas.ts";

/** `schema`, or null. */
export const orNull = <T extends Parameters<typeof t.Union>[0][number]>(schema: T) =>
  t.Union([schema, t.Null()]);

/** `{product}` in a path: a product's id (its routes and its options'). */
export const ProductParams = t.Object({ product: IdParam("Product") });

const SLUG = "^[a-z0-9]+(?:-[a-z0-9]+)*$";
/** An image: a path under `$APP_URL/storage/`, or an absolute http(s) URL. */
const ImageRef = Text({ minLength: 1, maxLength: 2048 });

/** Admin request fields; flags are JSON booleans here, strings only in responses. */
const productFields = {
  name: Text({ minLength: 1, maxLength: 255 }),
  user_id: BodyId,
  description: Prose({ maxLength: 5000 }),
  long_description: Prose({ maxLength: 100_000 }),
  slug: t.String({ minLength: 1, maxLength: 255, pattern: SLUG }),
  vendor_id: orNull(BodyId),
  category_id: orNull(Int({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
  addon_to: orNull(BodyId),
  free: t.Boolean(),
  hidden: t.Boolean(),
  disabled: t.Boolean(),
  featured: t.Boolean(),
  placeholder_injection: t.Boolean(),
  discount: t.Number({ minimum: 0, maximum: 100, description: "percent off" }),
  tags: t.Array(Text({ minLength: 1, maxLength: 50 }), { maxItems: 50, uniqueItems: true }),
  cover_image: orNull(ImageRef),
  gallery_images: t.Array(ImageRef, { maxItems: 50 }),
  youtube_video_url: orNull(Text({ maxLength: 2048, pattern: "^https?://" })),
};

const { name, user_id, ...optionalFields } = productFields;

export const CreateProductBody = t.Composite(
  [t.Object({ name, user_id }), t.Partial(t.Object(optionalFields))],
  {
    additionalProperties: false,
  },
);

export const UpdateProductBody = t.Partial(t.Object(productFields), { additionalProperties: false });

export type CreateProductInput = typeof CreateProductBody.static;
export type UpdateProductInput = typeof UpdateProductBody.static;

/** `GET /api/products`: a page, a name to look for, and whether soft-deleted products are listed. */
export const ProductListQuery = t.Object({
  ...PageQuery,
  search: t.Optional(t.String({ maxLength: 255, description: "part of the name, any case" })),
  deleted: t.Optional(
    t.String({ description: '"1" lists soft-deleted products too (default "0": only live ones)' }),
  ),
  counts: t.Optional(
    t.String({
      description:
        '"1" adds `counts` to each product: its versions, latest version, licenses and validations of the last 7 days',
    }),
  ),
});
export type ProductListQuery = typeof ProductListQuery.static;
