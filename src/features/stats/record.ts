// What the hot paths call to count usage: one Map update each (usage-counter.ts writes them later).
import type { AppContext } from "../../context.ts";
import { toId } from "../../validation/ids.ts";

/**
 * A validation's outcome, under the license's product; a key that matched nothing under the product
 * the request named (when it named one: a product that does not exist is left out when written).
 */
export function countValidation(
  ctx: Pick<AppContext, "usage">,
  requestedProduct: string | number | undefined,
  answer: { code: string; license: { id: string; productId: string } | null },
): void {
  const productId = toId(answer.license?.productId ?? requestedProduct);
  if (productId === null) return;
  ctx.usage.add({
    productId,
    series: "validations",
    licenseId: answer.license?.id ?? "",
    detail: answer.code,
  });
}
