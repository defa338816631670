// A product's state as labels: shown to the people who manage it, who need to know buyers cannot see it.
import type { Product } from "../wire.ts";

export function ProductFlags({ product }: { product: Product }) {
  const flags = [
    product.hidden === "1" && "Hidden",
    product.disabled === "1" && "Disabled",
    product.deleted_at !== null && "Deleted",
  ].filter((flag): flag is string => Boolean(flag));
  if (flags.length === 0) return null;
  return (
    <span class="flags">
      {flags.map((flag) => (
        <span key={flag} class="label">
          {flag}
        </span>
      ))}
    </span>
  );
}
