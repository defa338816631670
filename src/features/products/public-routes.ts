import { stat } from "node:fs/promises";
import { extname, join, resolve, sep } from "node:path";
import { Elysia } from "elysia";
import type { AppContext } from "../../context.ts";
import { NotFound } from "../../errors.ts";
import { answers } from "../../http/schemas.ts";
import { publicProductPage } from "./page.ts";

/** The images `/storage/` serves, by extension; anything else (an SVG could carry script) is a 404. */
const IMAGE_TYPES: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".avif": "image/avif",
};

/** What every image carries besides its type: it may be cached, and is never sniffed as anything else. */
const IMAGE_HEADERS = { "cache-control": "public, max-age=3600", "x-content-type-options": "nosniff" };

/**
 * What a product's `cover_image_url`, `gallery_image_urls` and `full_url` point at, with no
 * credentials: the images in PUBLIC_DIR and a plain page for each listed product.
 */
export const publicProductRoutes = (ctx: AppContext) =>
  new Elysia({ tags: ["Public"] })
    .get("/storage/*", ({ params }) => publicImage(ctx.config.publicDir, params["*"]), {
      ...answers("A product image from PUBLIC_DIR (what cover_image_url points at)", {}, 404),
    })
    .get("/products/:slug", ({ params }) => publicProductPage(ctx, params.slug), {
      ...answers("A listed product's public page (what full_url points at)", {}, 404),
    });

/**
 * The image file for a `/storage/…` path: inside PUBLIC_DIR, no hidden or parent segments, an image
 * type, a regular file. Everything else is the same 404, so nothing outside the folder can be probed.
 */
async function publicImage(root: string, raw: string): Promise<Response> {
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
  return new Response(Bun.file(path), { headers: { "content-type": type, ...IMAGE_HEADERS } });
}
