import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { count } from "drizzle-orm";
import { products, users } from "../src/db/schema/index.ts";
import { bearer, readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { apiKeyFor, createProduct, createUser, tokenFor } from "./helpers/factories.ts";

/**
 * Hostile request bodies against a listening server: nesting, element counts, NUL characters and
 * content types are refused with a 4xx JSON message before schema validation runs, and nothing is
 * written.
 */

let t: TestApp;
let base: string;
let adminToken: string;
let vendorToken: string;
let apiKey: string;
let product: { id: number };

beforeAll(async () => {
  t = await startTestApp({ jobs: "send", env: { WEBHOOK_ALLOW_PRIVATE: "true" } });
  base = t.listen();
  adminToken = await tokenFor(t.ctx, await createUser(t.ctx, { role: "admin" }));
  const vendor = await createUser(t.ctx, { role: "vendor" });
  vendorToken = await tokenFor(t.ctx, vendor);
  product = await createProduct(t.ctx, vendor);
  apiKey = (await apiKeyFor(t.ctx)).key;
});
afterAll(() => t.close());

function send(path: string, body: string, headers: Record<string, string> = {}, method = "POST") {
  return fetch(`${base}${path}`, {
    method,
    headers: { "content-type": "application/json", ...headers },
    body,
  });
}

const nested = (levels: number, inner = "1") => `${"[".repeat(levels)}${inner}${"]".repeat(levels)}`;

async function expectMessage(response: Response, status: number, message: string | RegExp) {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toContain("application/json");
  const body = await readJson(response);
  expect(Object.keys(body)).toEqual(["message"]);
  if (typeof message === "string") expect(body.message).toBe(message);
  else expect(body.message).toMatch(message);
}

const rowCount = async (table: typeof users | typeof products) =>
  (await t.ctx.db.select({ n: count() }).from(table))[0]?.n ?? 0;

describe("nesting and element counts are refused before anything else looks at the body", () => {
  test.each([20_000, 50_000])(
    "validate with `nonce` nested %d levels deep → 400, and health answers meanwhile",
    async (levels) => {
      const body = `{"key":"AAAAA-AAAAA-AAAAA-AAAAA-AAAAA","nonce":${nested(levels)}}`;
      const [response, health] = await Promise.all([
        send("/api/v1/licenses/validate", body),
        fetch(`${base}/api/health`),
      ]);
      await expectMessage(response, 400, "The request body is nested more than 32 levels deep.");
      expect(health.status).toBe(200);
    },
  );

  test("32 levels are still parsed (and then refused by the schema, field by field)", async () => {
    const body = `{"key":"AAAAA-AAAAA-AAAAA-AAAAA-AAAAA","nonce":${nested(31)}}`;
    const response = await send("/api/v1/licenses/validate", body);
    expect(response.status).toBe(422);
    expect((await readJson(response)).errors).toEqual({ nonce: ["The nonce field must be a string."] });
  });

  test("deep arrays in an admin body → 400, no product created", async () => {
    const before = await rowCount(products);
    const body = `{"name":"Deep","user_id":1,"tags":${nested(40, '"x"')}}`;
    const response = await send("/api/admin/products", body, bearer(adminToken));
    await expectMessage(response, 400, "The request body is nested more than 32 levels deep.");
    expect(await rowCount(products)).toBe(before);
  });

  test("brackets inside strings do not count as nesting", async () => {
    const response = await send(
      "/api/admin/users",
      JSON.stringify({ name: "[".repeat(200), email: `brackets-${Date.now()}@example.com` }),
      bearer(adminToken),
    );
    expect(response.status).toBe(201);
    expect((await readJson(response)).data.name).toBe("[".repeat(200));
  });

  test("more than 10,000 elements → 400 (a flat array of 200,000 numbers fits in 1 MiB)", async () => {
    const before = await rowCount(products);
    const tags = `[${Array.from({ length: 200_000 }, () => "1").join(",")}]`;
    const response = await send("/api/admin/products", `{"name":"Wide","user_id":1,"tags":${tags}}`, {
      ...bearer(adminToken),
    });
    await expectMessage(response, 400, "The request body has more than 10000 elements.");
    expect(await rowCount(products)).toBe(before);
  });

  test("the base64 publish form is held to the same depth", async () => {
    const body = `{"version_name":"1.0.0","title":"t","changelog":${nested(1000, '"c"')},"file":{"filename":"a.jar","content":"YQ=="}}`;
    const response = await send(`/api/products/${product.id}/versions`, body, bearer(vendorToken));
    await expectMessage(response, 400, "The request body is nested more than 32 levels deep.");
  });
});

describe("NUL characters: 422 on the field, nothing stored", () => {
  const NUL = "a\u0000b";
  const cases: [string, string, () => Record<string, string>, Record<string, unknown>, string][] = [
    [
      "a user's name",
      "/api/admin/users",
      () => bearer(adminToken),
      { name: NUL, email: "nul@example.com" },
      "name",
    ],
    [
      "a product's description",
      "/api/admin/products",
      () => bearer(adminToken),
      { name: "P", user_id: 1, description: NUL },
      "description",
    ],
    ["a token's name", "/api/admin/users/1/tokens", () => bearer(adminToken), { name: NUL }, "name"],
    ["an API key's name", "/api/admin/api-keys", () => bearer(adminToken), { name: NUL }, "name"],
    ["a webhook URL", "/api/webhooks", () => bearer(adminToken), { url: `http://example.com/${NUL}` }, "url"],
    [
      "a license's expiry",
      "/api/v1/licenses",
      () => ({ "x-api-key": apiKey }),
      { ownerId: "1", creatorId: "1", productId: "1", expires: NUL },
      "expires",
    ],
    ["a validated key", "/api/v1/licenses/validate", () => ({}), { key: NUL }, "key"],
    [
      "a tag inside an array",
      "/api/admin/products",
      () => bearer(adminToken),
      { name: "P", user_id: 1, tags: ["ok", NUL] },
      "tags.1",
    ],
  ];

  test.each(cases)("%s", async (_, path, headers, body, field) => {
    const users_ = await rowCount(users);
    const products_ = await rowCount(products);
    const response = await send(path, JSON.stringify(body), headers());
    expect(response.status).toBe(422);
    expect(await readJson(response)).toEqual({
      message: `The ${field.replaceAll("_", " ")} field must not contain NUL characters.`,
      errors: { [field]: [`The ${field.replaceAll("_", " ")} field must not contain NUL characters.`] },
    });
    expect(await rowCount(users)).toBe(users_);
    expect(await rowCount(products)).toBe(products_);
  });

  test("an option's name", async () => {
    const response = await send(
      `/api/admin/products/${product.id}/options`,
      JSON.stringify({ name: NUL, price: 1 }),
      bearer(adminToken),
    );
    expect(response.status).toBe(422);
    expect((await readJson(response)).errors).toEqual({
      name: ["The name field must not contain NUL characters."],
    });
  });

  test("version fields, JSON and multipart: 422, no version", async () => {
    const path = `/api/products/${product.id}/versions`;
    const asJson = await send(
      path,
      JSON.stringify({
        version_name: "1.0.0",
        title: NUL,
        changelog: "c",
        file: { filename: "a.jar", content: "YQ==" },
      }),
      bearer(vendorToken),
    );
    expect(asJson.status).toBe(422);
    expect((await readJson(asJson)).errors).toEqual({
      title: ["The title field must not contain NUL characters."],
    });

    const form = new FormData();
    form.append("version_name", NUL);
    form.append("title", "t");
    form.append("changelog", "c");
    form.append("file", new File(["abc"], "a.jar"));
    const asMultipart = await fetch(`${base}${path}`, {
      method: "POST",
      headers: bearer(vendorToken),
      body: form,
    });
    expect(asMultipart.status).toBe(422);
    expect((await readJson(asMultipart)).errors).toEqual({
      version_name: ["The version name field must not contain NUL characters."],
    });

    const list = await fetch(`${base}${path}`, { headers: bearer(vendorToken) });
    expect((await readJson(list)).data).toEqual([]);
  });
});

describe("bidirectional controls (U+202A–202E, U+2066–2069): names and titles refuse them, file names drop them", () => {
  const message = (field: string) =>
    `The ${field.replaceAll(/[_.]/g, " ")} field must not contain bidirectional control characters.`;
  const cases: [string, string, Record<string, unknown>, string][] = [
    ["a user's name", "/api/admin/users", { name: "Mallory\u202E", email: "bidi@example.com" }, "name"],
    ["a product's name", "/api/admin/products", { name: "Tools\u2066", user_id: 1 }, "name"],
    ["a product's tag", "/api/admin/products", { name: "P", user_id: 1, tags: ["a\u202Db"] }, "tags.0"],
    ["a token's name", "/api/admin/users/1/tokens", { name: "ci\u2069" }, "name"],
    ["an API key's name", "/api/admin/api-keys", { name: "\u202Ashop" }, "name"],
  ];

  test.each(cases)("%s: 422, nothing stored", async (_, path, body, field) => {
    const users_ = await rowCount(users);
    const products_ = await rowCount(products);
    const response = await send(path, JSON.stringify(body), bearer(adminToken));
    expect(response.status).toBe(422);
    expect(await readJson(response)).toEqual({
      message: message(field),
      errors: { [field]: [message(field)] },
    });
    expect(await rowCount(users)).toBe(users_);
    expect(await rowCount(products)).toBe(products_);
  });

  test("a version's title and name, JSON and multipart: 422, no version", async () => {
    const path = `/api/products/${product.id}/versions`;
    const asJson = await send(
      path,
      JSON.stringify({
        version_name: "9.0.1",
        title: "Fixes \u202E",
        changelog: "c",
        file: { filename: "a.jar", content: "YQ==" },
      }),
      bearer(vendorToken),
    );
    expect(asJson.status).toBe(422);
    expect((await readJson(asJson)).errors).toEqual({ title: [message("title")] });

    const form = new FormData();
    form.append("version_name", "9.0.1\u2067");
    form.append("title", "t");
    form.append("changelog", "c");
    form.append("file", new File(["abc"], "a.jar"));
    const asMultipart = await fetch(`${base}${path}`, {
      method: "POST",
      headers: bearer(vendorToken),
      body: form,
    });
    expect(asMultipart.status).toBe(422);
    expect((await readJson(asMultipart)).errors).toEqual({ version_name: [message("version_name")] });

    const list = await fetch(`${base}${path}`, { headers: bearer(vendorToken) });
    expect((await readJson(list)).data).toEqual([]);
  });

  test("a file name keeps its letters and loses the controls, in the Version and in Content-Disposition", async () => {
    const form = new FormData();
    form.append("version_name", "bidi-1");
    form.append("title", "t");
    form.append("changelog", "c");
    form.append("file", new File(["abc"], "setup-\u202Eexe.jar"));
    const published = await fetch(`${base}/api/products/${product.id}/versions`, {
      method: "POST",
      headers: bearer(vendorToken),
      body: form,
    });
    expect(published.status).toBe(201);
    const { data } = await readJson(published);
    expect(data.file_name).toBe("setup-exe.jar");
    const download = await fetch(`${base}${new URL(data.download_url).pathname}`, {
      headers: bearer(vendorToken),
    });
    expect(download.status).toBe(200);
    expect(download.headers.get("content-disposition")).toBe('attachment; filename="setup-exe.jar"');
    expect(await download.text()).toBe("abc");
  });
});

describe("content types and body limits, whatever the type", () => {
  test("a form-urlencoded body to validate → 415, before it is read", async () => {
    const response = await send("/api/v1/licenses/validate", "key=AAAAA", {
      "content-type": "application/x-www-form-urlencoded",
    });
    await expectMessage(response, 415, "Send the request body as application/json.");
  });

  test("text/plain to an admin route → 415", async () => {
    const response = await send("/api/admin/users", '{"name":"x","email":"x@example.com"}', {
      "content-type": "text/plain",
      ...bearer(adminToken),
    });
    await expectMessage(response, 415, "Send the request body as application/json.");
  });

  test("a declared 100 MB form body → 413 at once (raw socket: fetch would fix the length)", async () => {
    const { port } = new URL(base);
    const answer = await new Promise<string>((resolve, reject) => {
      let received = "";
      const socket = connect(Number(port), "127.0.0.1", () => {
        socket.write(
          "POST /api/v1/licenses/validate HTTP/1.1\r\nhost: depot.test\r\n" +
            `content-type: application/x-www-form-urlencoded\r\ncontent-length: ${100 * 1024 ** 2}\r\n\r\nkey=`,
        );
      });
      socket.on("data", (chunk) => {
        received += chunk.toString();
        if (received.includes("}")) socket.destroy();
      });
      socket.on("close", () => resolve(received));
      socket.on("error", reject);
    });
    expect(answer).toStartWith("HTTP/1.1 413");
    expect(answer.toLowerCase()).toContain("content-type: application/json");
    expect(answer).toEndWith('{"message":"The request body is too large."}');
  });

  test("a chunked (undeclared length) form body of 8 MiB → 415 without buffering it", async () => {
    let sent = 0;
    const body = new ReadableStream({
      pull(controller) {
        if (sent >= 8 * 1024 ** 2) return controller.close();
        sent += 64 * 1024;
        controller.enqueue(new Uint8Array(64 * 1024).fill(97));
      },
    });
    const response = await fetch(`${base}/api/v1/licenses/validate`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body,
      duplex: "half",
    } as RequestInit);
    await expectMessage(response, 415, "Send the request body as application/json.");
  });

  test("a chunked JSON body is read up to 1 MiB: a small one is taken, a larger one is a 413", async () => {
    const chunked = (text: string) => {
      const bytes = new TextEncoder().encode(text);
      let offset = 0;
      return new ReadableStream({
        pull(controller) {
          if (offset >= bytes.length) return controller.close();
          controller.enqueue(bytes.slice(offset, offset + 16 * 1024));
          offset += 16 * 1024;
        },
      });
    };
    const small = await fetch(`${base}/api/admin/users`, {
      method: "POST",
      headers: { "content-type": "application/json", ...bearer(adminToken) },
      body: chunked(JSON.stringify({ name: "Chunky", email: `chunky-${Date.now()}@example.com` })),
      duplex: "half",
    } as RequestInit);
    expect(small.status).toBe(201);
    expect((await readJson(small)).data.name).toBe("Chunky");

    const large = await fetch(`${base}/api/admin/users`, {
      method: "POST",
      headers: { "content-type": "application/json", ...bearer(adminToken) },
      body: chunked(JSON.stringify({ name: "x".repeat(2 * 1024 * 1024), email: "big@example.com" })),
      duplex: "half",
    } as RequestInit);
    await expectMessage(large, 413, "The request body is too large.");
  });

  test("no body and no content type → 422 from the schema, not a 415", async () => {
    const response = await fetch(`${base}/api/v1/licenses/validate`, { method: "POST" });
    expect(response.status).toBe(422);
    expect(await readJson(response)).toEqual({
      message: "The request body must be a JSON object.",
      errors: { body: ["The request body must be a JSON object."] },
    });
  });

  test("application/json with a charset and a +json type are JSON", async () => {
    for (const type of ["application/json; charset=utf-8", "application/merge-patch+json"]) {
      const response = await send("/api/v1/licenses/validate", '{"key":"AAAAA"}', { "content-type": type });
      expect(response.status).toBe(200);
      expect((await readJson(response)).code).toBe("NOT_FOUND");
    }
  });
});
