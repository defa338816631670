import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { dirname, join } from "node:path";
import { bearer, readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { createProduct, createUser, tokenFor } from "./helpers/factories.ts";

/**
 * The URLs a product carries answer: `cover_image_url` and `gallery_image_urls` are images served from
 * PUBLIC_DIR under /storage/, `full_url` is the product's public page. Nothing outside PUBLIC_DIR, and
 * no unlisted product, can be reached that way.
 */

let t: TestApp;
let base: string;
let token: string;
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);

beforeAll(async () => {
  t = await startTestApp();
  base = t.listen();
  token = await tokenFor(t.ctx, await createUser(t.ctx));
});
afterAll(() => t.close());

const onServer = (url: string) => url.replace("http://depot.test", base);
const putImage = (ref: string) => {
  const path = join(t.ctx.config.publicDir, ref);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, PNG);
};
const readProduct = async (id: number) =>
  (await readJson(await fetch(`${base}/api/products/${id}`, { headers: bearer(token) }))).data;

describe("a product's URLs answer", () => {
  test("cover_image_url and every gallery URL: the image, typed, cacheable", async () => {
    putImage("products/tool/cover.png");
    putImage("products/tool/shot.png");
    const owner = await createUser(t.ctx, { role: "vendor" });
    const product = await createProduct(t.ctx, owner, {
      cover_image: "products/tool/cover.png",
      gallery_images: ["products/tool/shot.png"],
    });
    const json = await readProduct(product.id);
    for (const url of [json.cover_image_url, ...JSON.parse(json.gallery_image_urls)]) {
      const response = await fetch(onServer(url));
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("image/png");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(response.headers.get("cache-control")).toBe("public, max-age=3600");
      expect(Buffer.from(await response.arrayBuffer()).equals(PNG)).toBe(true);
    }
  });

  test("full_url: the listed product's page, every value escaped", async () => {
    const owner = await createUser(t.ctx, { role: "vendor" });
    const product = await createProduct(t.ctx, owner, {
      name: "Tool <script>alert(1)</script>",
      description: 'Says "hi" & more',
      cover_image: "products/tool/cover.png",
    });
    const json = await readProduct(product.id);
    const response = await fetch(onServer(json.full_url));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("content-security-policy")).toStartWith("default-src 'none'");
    const html = await response.text();
    expect(html).toContain("<h1>Tool &#60;script&#62;alert(1)&#60;/script&#62;</h1>");
    expect(html).not.toContain("<script>");
    expect(html).toContain("Says &#34;hi&#34; &#38; more");
    expect(html).toContain(`<img src="${json.cover_image_url}" alt="">`);
  });

  test("a hidden product's page and an unknown slug are the same 404", async () => {
    const owner = await createUser(t.ctx, { role: "vendor" });
    const hidden = await createProduct(t.ctx, owner, { hidden: true });
    for (const slug of [hidden.slug, "no-such-product"]) {
      const response = await fetch(`${base}/products/${slug}`);
      expect(response.status).toBe(404);
      expect(await readJson(response)).toEqual({ message: "Product not found." });
    }
  });
});

describe("/storage/ serves images from PUBLIC_DIR and nothing else", () => {
  test.each([
    ["a missing image", "/storage/products/none.png"],
    ["an encoded slash and parent", "/storage/products%2f..%2f..%2fapp.key"],
    ["a hidden file", "/storage/products/tool/.cover.png"],
    ["a type that is not an image", "/storage/products/tool/notes.txt"],
    ["an SVG (it could carry script)", "/storage/products/tool/logo.svg"],
    ["a directory", "/storage/products/tool"],
  ])("%s → 404 JSON", async (_, path) => {
    for (const ref of ["products/tool/.cover.png", "products/tool/notes.txt", "products/tool/logo.svg"]) {
      putImage(ref);
    }
    const response = await fetch(`${base}${path}`);
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(await readJson(response)).toEqual({ message: "File not found." });
  });
});

test("parent segments sent raw (no client normalises them) never leave PUBLIC_DIR", async () => {
  const appKey = t.ctx.appKey;
  for (const path of [
    "/storage/../app.key",
    "/storage/%2e%2e/app.key",
    "/storage/products/..%2f..%2fapp.key",
  ]) {
    const answer = await rawGet(path);
    expect(answer).toMatch(/^HTTP\/1\.1 404/);
    expect(answer).not.toContain(appKey);
  }
});

/** A GET with the path exactly as written, over a plain socket. */
function rawGet(path: string): Promise<string> {
  const { port } = new URL(base);
  return new Promise((resolve, reject) => {
    let received = "";
    const socket = connect(Number(port), "127.0.0.1", () => {
      socket.write(`GET ${path} HTTP/1.1\r\nhost: depot.test\r\nconnection: close\r\n\r\n`);
    });
    socket.on("data", (chunk) => {
      received += chunk.toString();
    });
    socket.on("close", () => resolve(received));
    socket.on("error", reject);
  });
}
