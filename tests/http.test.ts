import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { Elysia, t as schema } from "elysia";
import { Forbidden, Invalid, NotFound, TooManyAttempts } from "../src/errors.ts";
import { errorRenderer } from "../src/http/error-renderer.ts";
import { createLogger } from "../src/log.ts";
import { bearer, json, readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { apiKeyFor, createProduct, createUser, tokenFor } from "./helpers/factories.ts";
import { sessionCookieOf, userWithPassword } from "./helpers/sessions.ts";

let t: TestApp;
let adminToken: string;

beforeAll(async () => {
  t = await startTestApp({ env: { MAX_UPLOAD_BYTES: "4096" } });
  adminToken = await tokenFor(t.ctx, await createUser(t.ctx, { role: "admin" }));
});
afterAll(() => t.close());

describe("GET /api/health", () => {
  test("200 {status: ok} with no auth, a JSON content type and a request id", async () => {
    const response = await t.request("/api/health");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(await readJson(response)).toEqual({ status: "ok" });
  });

  test("a caller's own X-Request-Id is echoed; a hostile one is replaced", async () => {
    const kept = await t.request("/api/health", { headers: { "x-request-id": "trace-123" } });
    expect(kept.headers.get("x-request-id")).toBe("trace-123");
    const replaced = await t.request("/api/health", { headers: { "x-request-id": "a b\u0001<script>" } });
    expect(replaced.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("X-Content-Type-Options: nosniff on every kind of answer", () => {
  test("success, refusals, a body too large, the docs and the dashboard, over a real socket", async () => {
    const url = t.listen();
    const json = { "content-type": "application/json" };
    const answers: [string, Promise<Response>][] = [
      ["health", fetch(`${url}/api/health`)],
      ["unknown route", fetch(`${url}/api/nothing-here`)],
      ["wrong method", fetch(`${url}/api/health`, { method: "DELETE" })],
      ["no credentials", fetch(`${url}/api/admin/users`)],
      [
        "malformed JSON",
        fetch(`${url}/api/admin/users`, {
          method: "POST",
          headers: { ...json, ...bearer(adminToken) },
          body: "{",
        }),
      ],
      [
        "invalid fields",
        fetch(`${url}/api/admin/users`, {
          method: "POST",
          headers: { ...json, ...bearer(adminToken) },
          body: "{}",
        }),
      ],
      [
        "too large",
        fetch(`${url}/api/admin/users`, {
          method: "POST",
          headers: { ...json, ...bearer(adminToken) },
          body: JSON.stringify({ name: "x".repeat(2 * 1024 * 1024) }),
        }),
      ],
      ["docs", fetch(`${url}/docs`)],
      ["dashboard", fetch(`${url}/`)],
    ];
    const seen: Record<string, [number, string | null]> = {};
    for (const [name, answer] of answers) {
      const response = await answer;
      await response.arrayBuffer();
      seen[name] = [response.status, response.headers.get("x-content-type-options")];
    }
    expect(seen).toEqual({
      health: [200, "nosniff"],
      "unknown route": [404, "nosniff"],
      "wrong method": [405, "nosniff"],
      "no credentials": [401, "nosniff"],
      "malformed JSON": [400, "nosniff"],
      "invalid fields": [422, "nosniff"],
      "too large": [413, "nosniff"],
      docs: [200, "nosniff"],
      dashboard: [200, "nosniff"],
    });
  });
});

describe("Cache-Control: no-store on API answers", () => {
  test("secrets, authenticated answers by every credential, refusals and the validation; not the public keys", async () => {
    const url = t.listen();
    const post = (path: string, body: unknown, headers: Record<string, string>) =>
      fetch(`${url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      });
    const vendor = await userWithPassword(t.ctx, "correct horse battery", { role: "vendor" });
    const product = await createProduct(t.ctx, vendor);
    const { key: apiKey } = await apiKeyFor(t.ctx);
    const apiKeyHeader = { "x-api-key": apiKey };

    const signIn = await post(
      "/api/auth/sign-in",
      { email: vendor.email, password: "correct horse battery" },
      {},
    );
    const session = { cookie: sessionCookieOf(signIn) };
    const token = await post(`/api/admin/users/${vendor.id}/tokens`, { name: "ci" }, bearer(adminToken));
    const newKey = await post("/api/admin/api-keys", { name: "shop" }, bearer(adminToken));
    const webhook = await post("/api/webhooks", { url: "https://203.0.113.10/hook" }, bearer(adminToken));
    const license = await post(
      "/api/v1/licenses",
      { ownerId: String(vendor.id), creatorId: String(vendor.id), productId: String(product.id) },
      apiKeyHeader,
    );
    const licenseKey = (await readJson(license)).key as string;

    const answers: [string, Response][] = [
      ["sign-in (session cookie and CSRF token)", signIn],
      ["a new token", token],
      ["a new API key", newKey],
      ["a new webhook secret", webhook],
      ["a new license key", license],
      ["bearer", await fetch(`${url}/api/users/${vendor.id}`, { headers: bearer(adminToken) })],
      ["session cookie", await fetch(`${url}/api/auth/session`, { headers: session })],
      ["x-api-key", await fetch(`${url}/api/v1/licenses`, { headers: apiKeyHeader })],
      ["validation (the key in the body)", await post("/api/v1/licenses/validate", { key: licenseKey }, {})],
      ["a bad token", await fetch(`${url}/api/users/${vendor.id}`, { headers: bearer("1|nope") })],
      ["an unknown route", await fetch(`${url}/api/nothing-here`, { headers: bearer(adminToken) })],
      ["health", await fetch(`${url}/api/health`)],
    ];
    const seen = Object.fromEntries(
      await Promise.all(
        answers.map(async ([name, response]) => {
          if (!response.bodyUsed) await response.arrayBuffer();
          return [name, [response.status, response.headers.get("cache-control")]] as const;
        }),
      ),
    );
    expect(seen).toEqual({
      "sign-in (session cookie and CSRF token)": [200, "no-store"],
      "a new token": [201, "no-store"],
      "a new API key": [201, "no-store"],
      "a new webhook secret": [201, "no-store"],
      "a new license key": [201, "no-store"],
      bearer: [200, "no-store"],
      "session cookie": [200, "no-store"],
      "x-api-key": [200, "no-store"],
      "validation (the key in the body)": [200, "no-store"],
      "a bad token": [401, "no-store"],
      "an unknown route": [404, "no-store"],
      health: [200, "no-store"],
    });

    // Answers that choose their own caching keep it: the public signing keys (a release file's
    // `private, no-cache` with its ETag and 304 is asserted in versions-download.test.ts).
    const keys = await fetch(`${url}/api/v1/keys`, { headers: bearer(adminToken) });
    expect(keys.status).toBe(200);
    expect(keys.headers.get("cache-control")).toBe("public, max-age=300");
    // Outside /api nothing changes: the dashboard's page is revalidated, not kept from the cache.
    expect((await fetch(`${url}/`)).headers.get("cache-control")).toBe("no-cache");
  });
});

describe("error bodies (docs/reference/http-api.md, HTTP API)", () => {
  test("unknown route → 404 JSON", async () => {
    const response = await t.request("/api/nothing-here");
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(await readJson(response)).toEqual({ message: "Route not found." });
  });

  test("known route, wrong method → 405 with Allow", async () => {
    const response = await t.request("/api/health", { method: "DELETE" });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET, HEAD");
    expect(await readJson(response)).toEqual({
      message: "The DELETE method is not supported for this route.",
    });
    const param = await t.request("/api/users/5", { method: "POST" });
    expect(param.status).toBe(405);
  });

  test("malformed JSON → 400 JSON message", async () => {
    const response = await t.request("/api/admin/users", {
      method: "POST",
      headers: { "content-type": "application/json", ...bearer(adminToken) },
      body: '{"name": ',
    });
    expect(response.status).toBe(400);
    expect(await readJson(response)).toEqual({ message: "The request body could not be parsed as JSON." });
  });

  test("wrong content type → 422 saying the body must be a JSON object", async () => {
    const response = await t.request("/api/admin/users", {
      method: "POST",
      headers: { "content-type": "text/plain", ...bearer(adminToken) },
      body: "name=x",
    });
    expect(response.status).toBe(422);
    expect(await readJson(response)).toEqual({
      message: "The request body must be a JSON object.",
      errors: { body: ["The request body must be a JSON object."] },
    });
  });

  test("field errors → 422 with Laravel wording, one message per field, and a summary", async () => {
    const response = await t.request(
      "/api/admin/users",
      json({ email: "not-an-email", role: 7, shoe_size: 44 }, { token: adminToken }),
    );
    expect(response.status).toBe(422);
    const body = await readJson(response);
    expect(body.errors).toEqual({
      name: ["The name field is required."],
      email: ["The email field must be a valid email address."],
      role: ["The role field must be a string."],
      shoe_size: ["The shoe size field is prohibited."],
    });
    expect(body.message).toBe("The name field is required. (and 3 more errors)");
    for (const messages of Object.values(body.errors)) expect(messages).toBeArray();
  });

  test("a name over 255 characters → 422 naming the limit", async () => {
    const response = await t.request(
      "/api/admin/users",
      json({ name: "n".repeat(256), email: "a@b.co" }, { token: adminToken }),
    );
    expect(await readJson(response)).toMatchObject({
      errors: { name: ["The name field must not be greater than 255 characters."] },
    });
  });

  test("a body over MAX_UPLOAD_BYTES → 413 JSON from a listening server", async () => {
    const url = t.listen();
    const response = await fetch(`${url}/api/admin/users`, {
      method: "POST",
      headers: { "content-type": "application/json", ...bearer(adminToken) },
      body: JSON.stringify({ name: "x".repeat(1024 * 1024 * 2), email: "a@b.co" }),
    });
    expect(response.status).toBe(413);
    expect(await readJson(response)).toEqual({ message: "The request body is too large." });
  });

  describe("rendered once, whatever a route throws", () => {
    const probe = new Elysia()
      .use(errorRenderer({ log: createLogger("silent"), allowedMethods: () => [] }))
      .get("/forbidden", () => {
        throw new Forbidden();
      })
      .get("/missing", () => {
        throw new NotFound("Product");
      })
      .get("/invalid", () => {
        throw new Invalid({ title: ["The title field is required."], file: ["The file field is required."] });
      })
      .get("/throttled", () => {
        throw new TooManyAttempts(60);
      })
      .get("/bug", () => {
        throw new Error("secret database detail");
      })
      // A response that breaks its own schema is a server bug, not a 422.
      .get("/bad-response", () => ({ id: "not-a-number" }) as unknown as { id: number }, {
        response: { 200: schema.Object({ id: schema.Integer() }) },
      });
    const call = (path: string) => probe.handle(new Request(`http://localhost${path}`));

    test.each([
      ["/forbidden", 403, { message: "This action is unauthorized." }],
      ["/missing", 404, { message: "Product not found." }],
      [
        "/invalid",
        422,
        {
          message: "The title field is required. (and 1 more error)",
          errors: { title: ["The title field is required."], file: ["The file field is required."] },
        },
      ],
      ["/throttled", 429, { message: "Too Many Attempts." }],
      ["/bug", 500, { message: "Server Error." }],
      ["/bad-response", 500, { message: "Server Error." }],
    ])("%s → %i", async (path, status, body) => {
      const response = await call(path);
      expect(response.status).toBe(status);
      expect(await readJson(response)).toEqual(body);
    });

    test("429 carries Retry-After; 500 never leaks the error", async () => {
      expect((await call("/throttled")).headers.get("retry-after")).toBe("60");
      const text = await (await call("/bug")).text();
      expect(text).not.toContain("secret");
      expect(text).not.toContain("at ");
    });
  });
});

describe("OpenAPI", () => {
  test("/docs/json is a valid OpenAPI 3 document listing /api/health", async () => {
    const response = await t.request("/docs/json");
    expect(response.status).toBe(200);
    const document = await readJson(response);
    expect(document.openapi).toMatch(/^3\./);
    expect(document.paths).toHaveProperty("/api/health");
    expect(document.paths["/api/health"]).toHaveProperty("get");
    const result = await new Validator().validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  test("/docs serves the UI", async () => {
    const response = await t.request("/docs");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/html");
  });
});
