// What the caller may do with one product, so the dashboard offers only that (its product page, its
// licenses, the publish form). Each answer is the rule the action's own route applies, not a copy of it.
import type { AppContext } from "../../context.ts";
import type { Actor } from "../auth/actor.ts";
import { mayManageLicenses } from "../licenses/product-licenses.ts";
import { mayPublish } from "../versions/service.ts";
import type { ProductAccessJson } from "./json.ts";
import { findVisibleProduct } from "./service.ts";

/** 404 for a product `actor` may not see, as reading the product answers. */
export async function productAccess(
  ctx: Pick<AppContext, "db">,
  actor: Actor,
  id: number,
): Promise<typeof ProductAccessJson.static> {
  const product = await findVisibleProduct(ctx, actor, id);
  return {
    manage: mayManageLicenses(actor, product),
    // Publishing to a deleted product is a 404 (publishTarget looks for a live one).
    publish: product.deletedAt === null && mayPublish(actor, product),
  };
}
