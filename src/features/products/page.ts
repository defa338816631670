import type { AppContext } from "../../context.ts";
import type { Product } from "../../db/schema/index.ts";
import { imageUrl } from "./json.ts";
import { findListedProductBySlug } from "./service.ts";

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A listed product's public page: name, cover, description and tags; every value escaped. */
export function productPage(product: Product, appUrl: string): string {
  const cover = product.coverImage
    ? `<img src="${escapeHtml(imageUrl(product.coverImage, appUrl))}" alt="">`
    : "";
  const tags = product.tags.map((tag) => `<li>${escapeHtml(tag)}</li>`).join("");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(product.name)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:42rem;margin:2rem auto;padding:0 1rem;line-height:1.5}img{max-width:100%}ul{padding:0}li{display:inline-block;margin-right:.5rem;color:#555}</style>
</head>
<body>
<h1>${escapeHtml(product.name)}</h1>
${cover}
<p>${escapeHtml(product.description)}</p>
<ul>${tags}</ul>
</body>
</html>
`;
}

/** `/products/{slug}`: the listed product's page as served; anything else is a 404. */
export async function publicProductPage(ctx: Pick<AppContext, "db" | "config">, slug: string) {
  const product = await findListedProductBySlug(ctx, slug);
  return new Response(productPage(product, ctx.config.appUrl), {
    headers: {
      "content-type": "text/html; charset=utf-8",
      // Nothing on the page runs; images may come from the product's own absolute URLs.
      "content-security-policy": "default-src 'none'; img-src 'self' http: https:; style-src 'unsafe-inline'",
      "x-content-type-options": "nosniff",
    },
  });
}
