import { stat } from "node:fs/promises";
import { extname, join, resolve, sep } from "node:path";
import { Elysia } from "elysia";
import type { AppContext } from "../../context.ts";
import { NotFound } from "../../errors.ts";
import { refusals } from "../../http/schemas.ts";
import { productPage } from "./page.ts";
import { findListedProductBySlug } from "./service.ts";

/** The images `/storage/` serves, by extension; anything else (an SVG could carry script) is a 404. */
const IMAGE_TYPES: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".avif": "image/avif",
};

const tags = ["Public"];

/**
 * What a product's `cover_image_url`, `gallery_image_urls` and `full_url` point at, with no
 * credentials: the images in PUBLIC_DIR and a plain page for each listed product.
 */
export const publicProductRoutes = (ctx: AppContext) =>
  new Elysia()
    .get(
      "/storage/*",
      async ({ params }) => {
        const { path, type } = await publicImage(ctx.config.publicDir, params["*"]);
        return new Response(Bun.file(path), {
          headers: {
            "content-type": type,
            "cache-control": "public, max-age=3600",
            "x-content-type-options": "nosniff",
          },
        });
      },
      {
        response: refusals(404),
        detail: { summary: "A product image from PUBLIC_DIR (what cover_image_url points at)", tags },
      },
    )
    .get(
      "/products/:slug",
      async ({ params }) => {
        const product = await findListedProductBySlug(ctx, params.slug);
        return new Response(productPage(product, ctx.config.appUrl), {
          headers: {
            "content-type": "text/html; charset=utf-8",
            // Nothing on the page runs; images may come from the product's own absolute URLs.
            "content-security-policy":
              "default-src 'none'; img-src 'self' http: https:; style-src 'unsafe-inline'",
            "x-content-type-options": "nosniff",
          },
        });
      },
      {
        response: refusals(404),
        detail: { summary: "A listed product's public page (what full_url points at)", tags },
      },
    );

/**
 * The image file for a `/storage/…` path: inside PUBLIC_DIR, no hidden or parent segments, an image
 * type, a regular file. Everything else is the same 404, so nothing outside the folder can be probed.
 */
async function publicImage(root: string, raw: string): Promise<{ path: string; type: string }> {
  let relative: string;
  try {
    relative = decodeURIComponent(raw);
  } catch {
    throw new NotFound("File");
  }
  const segments = relative.split("/");
  const type = IMAGE_TYPES[extname(relative).toLowerCase()];
  const safe = segments.every(
    (segment) => segment !== "" && !segment.startsWith(".") && !/[\0\\]/.test(segment),
  );
  const path = resolve(join(root, ...segments));
  if (!type || !safe || !path.startsWith(resolve(root) + sep)) throw new NotFound("File");
  const found = await stat(path).catch(() => null);
  if (!found?.isFile()) throw new NotFound("File");
  return { path, type };
}
