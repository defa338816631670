import { afterAll, beforeAll, describe, expect, spyOn, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { selectRows } from "../src/db/rows.ts";
import { webhookDeliveries, webhooks } from "../src/db/schema/index.ts";
import { createLicense } from "../src/features/licenses/service.ts";
import { notifyHolders } from "../src/features/notifications/fan-out.ts";
import { DeliveryFailed, deliverWebhook } from "../src/features/webhooks/deliver.ts";
import { webhookDelivery } from "../src/features/webhooks/jobs.ts";
import { bearer, json, readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { createProduct, createUser, tokenFor } from "./helpers/factories.ts";

/**
 * Webhooks (README, Webhooks): registering endpoints, and deliveries from a real publish through the
 * real pg-boss worker to real receivers (`Bun.serve` on loopback, hence WEBHOOK_ALLOW_PRIVATE), signed
 * per Standard Webhooks and verified with its reference package, not with our own code.
 */

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const SLOW = 30_000;

let t: TestApp;
let base: string;
/** An app without WEBHOOK_ALLOW_PRIVATE, as in production (with its own job workers). */
let strict: TestApp;
let strictBase: string;

beforeAll(async () => {
  t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: "true" }, jobs: "workers" });
  base = t.listen();
  strict = await startTestApp({ jobs: "workers" });
  strictBase = strict.listen();
});

const servers: ReturnType<typeof Bun.serve>[] = [];
afterAll(async () => {
  for (const server of servers) await server.stop(true);
  await strict.close();
  await t.close();
});

// --- helpers -------------------------------------------------------------------------------------

interface Received {
  headers: Record<string, string>;
  body: string;
}

/** A webhook receiver on loopback; `answer(n)` decides the response to the n-th request (from 1). */
function receiver(answer: (n: number) => Response | Promise<Response> = () => new Response("ok")) {
  const received: Received[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      received.push({ headers: Object.fromEntries(request.headers), body: await request.text() });
      return answer(received.length);
    },
  });
  servers.push(server);
  return { url: `http://127.0.0.1:${server.port}/hook`, received, server };
}

/** A product with its owner (a vendor) and one holder (a live license), each with a token. */
async function world(app: TestApp = t) {
  const owner = await createUser(app.ctx, { role: "vendor" });
  const holder = await createUser(app.ctx);
  const product = await createProduct(app.ctx, owner);
  await createLicense(
    app.ctx,
    { id: 0, creatorId: null },
    { ownerId: String(holder.id), creatorId: String(owner.id), productId: String(product.id) },
  );
  return {
    owner,
    holder,
    product,
    ownerToken: await tokenFor(app.ctx, owner),
    holderToken: await tokenFor(app.ctx, holder),
  };
}

async function register(token: string, body: object, app: TestApp = t) {
  const response = await app.request("/api/webhooks", json(body, { token }));
  expect(response.status).toBe(201);
  return (await readJson(response)).data as { id: number; url: string; events: string[]; secret: string };
}

let serial = 0;
/** Publishes a version through a listening server, multipart as a CI pipeline sends it. */
async function publish(token: string, product: { id: number }, baseUrl = base): Promise<number> {
  const form = new FormData();
  form.append("version_name", `1.${++serial}.0`);
  form.append("title", "A release");
  form.append("changelog", "Fixed things.");
  form.append("file", new File([`release ${crypto.randomUUID()}`], "plugin.jar"));
  const response = await fetch(`${baseUrl}/api/products/${product.id}/versions`, {
    method: "POST",
    headers: bearer(token),
    body: form,
  });
  expect(response.status).toBe(201);
  return (await readJson(response)).data.id;
}

async function deliveriesOf(token: string, webhookId: number, app: TestApp = t) {
  const response = await app.request(`/api/webhooks/${webhookId}/deliveries`, { headers: bearer(token) });
  expect(response.status).toBe(200);
  // biome-ignore lint/suspicious/noExplicitAny: asserted field by field
  return (await readJson(response)).data as any[];
}

/** Polls until `check` holds (the worker is asynchronous); false after `ms`. */
async function eventually(check: () => boolean | Promise<boolean>, ms = 15_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await Bun.sleep(50);
  }
  return check();
}

let subject = 1_000_000;
/** A delivery row made directly, for driving the delivery function without the worker. */
async function deliveryRow(app: TestApp, webhookId: number): Promise<string> {
  const id = crypto.randomUUID();
  const payload = { type: "version.published", timestamp: new Date().toISOString(), data: { test: true } };
  await app.ctx.db
    .insert(webhookDeliveries)
    .values({ id, webhookId, event: "version.published", subjectId: ++subject, payload });
  return id;
}

async function jobState(id: string, app: TestApp = t) {
  const [row] = await selectRows<{ state: string; delay: number }>(
    app.ctx.db,
    sql`SELECT state, extract(epoch FROM start_after - now())::float8 AS delay FROM pgboss.job WHERE id = ${id}`,
  );
  return row;
}

/** POSTs `body` to /api/webhooks of a listening server with a real fetch. */
function post(baseUrl: string, token: string, body: object) {
  return fetch(`${baseUrl}/api/webhooks`, json(body, { token }));
}

/** The user's endpoints as rows: whether a refused request left one behind. */
async function webhookUrls(app: TestApp, userId: number) {
  const rows = await app.ctx.db
    .select({ url: webhooks.url })
    .from(webhooks)
    .where(eq(webhooks.userId, userId))
    .orderBy(webhooks.id);
  return rows.map((row) => row.url);
}

/** A 422 with exactly this one message on this one field, as JSON. */
async function expectInvalid(response: Response, field: string, message: string) {
  expect(response.status).toBe(422);
  expect(response.headers.get("content-type")).toStartWith("application/json");
  expect(await readJson(response)).toEqual({ message, errors: { [field]: [message] } });
}

const statusCodes = (delivery: { attempts: { status_code: number | null }[] }) =>
  delivery.attempts.map((attempt) => attempt.status_code);

// --- registering endpoints -----------------------------------------------------------------------

describe("registering endpoints", () => {
  test("create shows the secret once; list and delete are the user's own", async () => {
    const user = await createUser(t.ctx);
    const token = await tokenFor(t.ctx, user);
    const response = await t.request(
      "/api/webhooks",
      json({ url: "https://203.0.113.10/hooks/depot", events: ["version.published"] }, { token }),
    );
    expect(response.status).toBe(201);
    const { data } = await readJson(response);
    expect(data).toEqual({
      id: expect.any(Number),
      url: "https://203.0.113.10/hooks/depot",
      events: ["version.published"],
      secret: expect.stringMatching(SECRET),
      created_at: expect.stringMatching(ISO),
    });
    // The secret is derived (APP_KEY + a per-endpoint salt), never stored.
    const [row] = await t.ctx.db.select().from(webhooks).where(eq(webhooks.id, data.id));
    expect(JSON.stringify(row)).not.toContain(data.secret.slice(6));

    const other = await register(token, { url: "http://127.0.0.1:9/other" });
    expect(other.events).toEqual(["version.published"]); // the default
    expect(other.secret).not.toBe(data.secret);

    const list = await t.request("/api/webhooks", { headers: bearer(token) });
    expect(list.status).toBe(200);
    expect(await readJson(list)).toEqual({
      data: [
        {
          id: data.id,
          url: data.url,
          events: ["version.published"],
          disabled_at: null,
          created_at: data.created_at,
        },
        {
          id: other.id,
          url: other.url,
          events: ["version.published"],
          disabled_at: null,
          created_at: expect.stringMatching(ISO),
        },
      ],
      links: { first: "http://depot.test/api/webhooks?page=1", last: null, prev: null, next: null },
      meta: { current_page: 1, from: 1, path: "http://depot.test/api/webhooks", per_page: 15, to: 2 },
    });

    const gone = await t.request(`/api/webhooks/${data.id}`, { method: "DELETE", headers: bearer(token) });
    expect(gone.status).toBe(204);
    expect(await gone.text()).toBe("");
    const again = await t.request(`/api/webhooks/${data.id}`, { method: "DELETE", headers: bearer(token) });
    expect(again.status).toBe(404);
    expect(await readJson(again)).toEqual({ message: "Webhook not found." });
    const after = await readJson(await t.request("/api/webhooks", { headers: bearer(token) }));
    expect(after.data.map((webhook: { id: number }) => webhook.id)).toEqual([other.id]);
  });

  test("the list is paginated, oldest first, 15 a page (per_page 1–100)", async () => {
    const user = await createUser(t.ctx);
    const token = await tokenFor(t.ctx, user);
    const rows = await t.ctx.db
      .insert(webhooks)
      .values(
        Array.from({ length: 16 }, (_, i) => ({
          userId: user.id,
          url: `https://203.0.113.10/hook/${i + 1}`,
          events: ["version.published"],
          secretSalt: `salt-${i}`,
        })),
      )
      .returning();
    const listed = rows.map((row) => ({
      id: row.id,
      url: row.url,
      events: ["version.published"],
      disabled_at: null,
      created_at: row.createdAt.toISOString(),
    }));
    const list = (query: string) => fetch(`${base}/api/webhooks${query}`, { headers: bearer(token) });
    const path = "http://depot.test/api/webhooks";

    const first = await list("");
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toStartWith("application/json");
    expect(await readJson(first)).toEqual({
      data: listed.slice(0, 15),
      links: { first: `${path}?page=1`, last: null, prev: null, next: `${path}?page=2` },
      meta: { current_page: 1, from: 1, path, per_page: 15, to: 15 },
    });

    const second = await list("?page=2");
    expect(second.status).toBe(200);
    expect(await readJson(second)).toEqual({
      data: listed.slice(15),
      links: { first: `${path}?page=1`, last: null, prev: `${path}?page=1`, next: null },
      meta: { current_page: 2, from: 16, path, per_page: 15, to: 16 },
    });

    const small = await list("?per_page=5&page=2");
    expect(await readJson(small)).toEqual({
      data: listed.slice(5, 10),
      links: {
        first: `${path}?per_page=5&page=1`,
        last: null,
        prev: `${path}?per_page=5&page=1`,
        next: `${path}?per_page=5&page=3`,
      },
      meta: { current_page: 2, from: 6, path, per_page: 5, to: 10 },
    });

    const beyond = await list("?page=9");
    expect(await readJson(beyond)).toEqual({
      data: [],
      links: { first: `${path}?page=1`, last: null, prev: `${path}?page=8`, next: null },
      meta: { current_page: 9, from: null, path, per_page: 15, to: null },
    });
  });

  test.each([
    ["?page=0", "page", "The page field must be an integer of at least 1."],
    ["?page=abc", "page", "The page field must be an integer of at least 1."],
    ["?per_page=0", "per_page", "The per page field must be an integer between 1 and 100."],
    ["?per_page=101", "per_page", "The per page field must be an integer between 1 and 100."],
    ["?per_page=1.5", "per_page", "The per page field must be an integer between 1 and 100."],
  ])("GET /api/webhooks%s → 422", async (query, field, message) => {
    const token = await tokenFor(t.ctx, await createUser(t.ctx));
    await expectInvalid(
      await fetch(`${base}/api/webhooks${query}`, { headers: bearer(token) }),
      field,
      message,
    );
  });

  const TOO_MANY = "You may register at most 20 webhook endpoints.";

  /** `count` endpoints for `user`, written directly (the API is what is under test). */
  async function endpoints(app: TestApp, user: { id: number }, count: number) {
    await app.ctx.db.insert(webhooks).values(
      Array.from({ length: count }, (_, i) => ({
        userId: user.id,
        url: `https://203.0.113.10/existing/${i}`,
        events: ["version.published"],
        secretSalt: `salt-${i}`,
      })),
    );
  }

  test("at most 20 endpoints per user: the 21st is a 422 until one is deleted", async () => {
    const user = await createUser(t.ctx);
    const token = await tokenFor(t.ctx, user);
    await endpoints(t, user, 19);

    const twentieth = await post(base, token, { url: "https://203.0.113.10/twentieth" });
    expect(twentieth.status).toBe(201);
    const { data } = await readJson(twentieth);
    await expectInvalid(await post(base, token, { url: "https://203.0.113.10/21st" }), "url", TOO_MANY);
    const urls = await webhookUrls(t, user.id);
    expect(urls).toHaveLength(20);
    expect(urls).not.toContain("https://203.0.113.10/21st");

    // Another user is not affected.
    const other = await tokenFor(t.ctx, await createUser(t.ctx));
    expect((await post(base, other, { url: "https://203.0.113.10/other" })).status).toBe(201);

    // A deleted endpoint frees its place.
    const deleted = await fetch(`${base}/api/webhooks/${data.id}`, {
      method: "DELETE",
      headers: bearer(token),
    });
    expect(deleted.status).toBe(204);
    const again = await post(base, token, { url: "https://203.0.113.10/again" });
    expect(again.status).toBe(201);
    expect((await readJson(again)).data.url).toBe("https://203.0.113.10/again");
    expect(await webhookUrls(t, user.id)).toHaveLength(20);
  });

  test("the cap holds for creates at the same time: at 19, one of five passes", async () => {
    const user = await createUser(t.ctx);
    const token = await tokenFor(t.ctx, user);
    await endpoints(t, user, 19);
    const responses = await Promise.all(
      Array.from({ length: 5 }, (_, i) => post(base, token, { url: `https://203.0.113.10/race/${i}` })),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.toSorted()).toEqual([201, 422, 422, 422, 422]);
    for (const response of responses) {
      expect(response.headers.get("content-type")).toStartWith("application/json");
      if (response.status === 422) {
        expect(await readJson(response)).toEqual({ message: TOO_MANY, errors: { url: [TOO_MANY] } });
      }
    }
    expect(await webhookUrls(t, user.id)).toHaveLength(20);
  });

  test("a request that is invalid anyway gets its own errors, not the cap's", async () => {
    const user = await createUser(t.ctx);
    const token = await tokenFor(t.ctx, user);
    await endpoints(t, user, 20);
    await expectInvalid(
      await post(base, token, { url: "ftp://203.0.113.10/hook" }),
      "url",
      "The url field must be a valid http or https URL.",
    );
  });

  test("repeated events collapse to one", async () => {
    const token = await tokenFor(t.ctx, await createUser(t.ctx));
    const created = await register(token, {
      url: "https://203.0.113.10/hook",
      events: ["version.published", "version.published"],
    });
    expect(created.events).toEqual(["version.published"]);
  });

  test.each([
    ["ftp URL", { url: "ftp://example.com/hook" }, "url", "The url field must be a valid http or https URL."],
    ["not a URL", { url: "hook" }, "url", "The url field must be a valid http or https URL."],
    [
      "javascript: URL",
      { url: "javascript:alert(1)" },
      "url",
      "The url field must be a valid http or https URL.",
    ],
    [
      "URL over 2048 characters",
      { url: `https://example.com/${"a".repeat(2029)}` },
      "url",
      "The url field must not be greater than 2048 characters.",
    ],
    ["missing url", {}, "url", "The url field is required."],
    ["empty url", { url: "" }, "url", "The url field is required."],
    [
      "unknown event",
      { url: "https://203.0.113.10/hook", events: ["version.published", "order.created"] },
      "events",
      "The events field has unknown events: order.created (known: version.published, version.yanked).",
    ],
    [
      "no events",
      { url: "https://203.0.113.10/hook", events: [] },
      "events",
      "The events field must have at least 1 items.",
    ],
    [
      "events not a list",
      { url: "https://203.0.113.10/hook", events: "version.published" },
      "events",
      "The events field must be an array.",
    ],
    [
      "unknown field",
      { url: "https://203.0.113.10/hook", secret: "mine" },
      "secret",
      "The secret field is prohibited.",
    ],
  ])("%s → 422", async (_, body, field, message) => {
    const token = await tokenFor(t.ctx, await createUser(t.ctx));
    const response = await t.request("/api/webhooks", json(body, { token }));
    expect(response.status).toBe(422);
    const answer = await readJson(response);
    expect(answer.errors[field]).toEqual([message]);
    expect(Object.keys(answer.errors)).toEqual([field]);
  });

  const CONTROL = "The url field must not contain control characters or whitespace.";
  const CREDENTIALS = "The url field must not contain a user name or password.";
  test.each([
    ["a tab in the path", "https://203.0.113.10/a\tb", CONTROL],
    ["a newline at the end", "https://203.0.113.10/hook\n", CONTROL],
    ["a carriage return in the host", "https://203.0.\r113.10/hook", CONTROL],
    ["a leading tab", "\thttps://203.0.113.10/hook", CONTROL],
    ["a leading space", " https://203.0.113.10/hook", CONTROL],
    ["a trailing space", "https://203.0.113.10/hook ", CONTROL],
    ["a space in the path", "https://203.0.113.10/a b", CONTROL],
    // NUL is refused for every field before the URL rules look at it.
    ["NUL", "https://203.0.113.10/\u0000", "The url field must not contain NUL characters."],
    ["ESC", "https://203.0.113.10/\u001b[31m", CONTROL],
    ["DEL", "https://203.0.113.10/\u007f", CONTROL],
    ["a C1 control (NEL)", "https://203.0.113.10/\u0085", CONTROL],
    ["a no-break space", "https://203.0.113.10/\u00a0", CONTROL],
    ["a line separator", "https://203.0.113.10/\u2028", CONTROL],
    ["user and password", "https://user:secret@203.0.113.10/hook", CREDENTIALS],
    ["a user name", "https://user@203.0.113.10/hook", CREDENTIALS],
    ["a password only", "https://:secret@203.0.113.10/hook", CREDENTIALS],
    ["a host name as user name", "https://ci.example.com@203.0.113.10/hook", CREDENTIALS],
  ])("a URL with %s → 422, nothing stored", async (_, url, message) => {
    const user = await createUser(t.ctx);
    const token = await tokenFor(t.ctx, user);
    await expectInvalid(await post(base, token, { url, events: ["version.published"] }), "url", message);
    expect(await webhookUrls(t, user.id)).toEqual([]);
  });

  test("a URL with credentials and an unknown event are reported together", async () => {
    const token = await tokenFor(t.ctx, await createUser(t.ctx));
    const response = await post(base, token, { url: "https://u:p@203.0.113.10/", events: ["nope"] });
    expect(response.status).toBe(422);
    expect(response.headers.get("content-type")).toStartWith("application/json");
    expect(await readJson(response)).toEqual({
      message: `${CREDENTIALS} (and 1 more error)`,
      errors: {
        url: [CREDENTIALS],
        events: ["The events field has unknown events: nope (known: version.published, version.yanked)."],
      },
    });
  });

  test("a bad url and a bad event are reported together", async () => {
    const token = await tokenFor(t.ctx, await createUser(t.ctx));
    const response = await t.request("/api/webhooks", json({ url: "ftp://x", events: ["nope"] }, { token }));
    expect(response.status).toBe(422);
    expect(Object.keys((await readJson(response)).errors).toSorted()).toEqual(["events", "url"]);
  });

  test.each([
    "http://127.0.0.1:8080/hook",
    "http://localhost/hook",
    "http://10.1.2.3/hook",
    "http://172.16.5.4/hook",
    "http://192.168.1.1/hook",
    "http://169.254.169.254/latest/meta-data",
    "http://100.64.0.1/hook",
    "http://0.0.0.0/hook",
    "http://0x7f.1/hook",
    "http://224.0.0.1/hook",
    "http://[::1]/hook",
    "http://[::]/hook",
    "http://[::ffff:127.0.0.1]/hook",
    "http://[::ffff:10.0.0.1]/hook",
    "http://[fe80::1]/hook",
    "http://[fd12:3456::1]/hook",
    "http://[ff02::1]/hook",
  ])("without WEBHOOK_ALLOW_PRIVATE, %s → 422", async (url) => {
    const token = await tokenFor(strict.ctx, await createUser(strict.ctx));
    const response = await strict.request("/api/webhooks", json({ url }, { token }));
    expect(response.status).toBe(422);
    const { errors } = await readJson(response);
    expect(errors.url).toEqual([
      expect.stringMatching(/^The host .+ resolves to .+, a loopback or private address\.$/),
    ]);
  });

  test("without WEBHOOK_ALLOW_PRIVATE, a public address is accepted and an unresolvable host refused", async () => {
    const token = await tokenFor(strict.ctx, await createUser(strict.ctx));
    // IP literals resolve without a DNS server, so this works offline.
    await register(token, { url: "https://93.184.216.34/hook" }, strict);
    await register(token, { url: "http://[2606:4700:4700::1111]/hook" }, strict);
    const response = await strict.request(
      "/api/webhooks",
      json({ url: "https://depot-test.invalid/hook" }, { token }),
    );
    expect(response.status).toBe(422);
    expect((await readJson(response)).errors.url).toEqual([
      expect.stringMatching(/^The host depot-test\.invalid could not be resolved/),
    ]);
  });

  test.each([
    ["NAT64 of 127.0.0.1", "http://[64:ff9b::7f00:1]/", "64:ff9b::7f00:1"],
    ["6to4 of 127.0.0.1", "http://[2002:7f00:1::]/", "2002:7f00:1::"],
    ["6to4 of 192.168.1.1", "http://[2002:c0a8:0101::1]/hook", "2002:c0a8:101::1"],
    ["NAT64 of 169.254.169.254", "http://[64:ff9b::169.254.169.254]/", "64:ff9b::a9fe:a9fe"],
    [
      "Teredo, client 127.0.0.1",
      "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/",
      "2001:0:4136:e378:8000:63bf:80ff:fffe",
    ],
  ])(
    "without WEBHOOK_ALLOW_PRIVATE, an IPv6 form of a private IPv4 address (%s) → 422",
    async (_, url, host) => {
      const user = await createUser(strict.ctx);
      const token = await tokenFor(strict.ctx, user);
      await expectInvalid(
        await post(strictBase, token, { url }),
        "url",
        `The host ${host} resolves to ${host}, a loopback or private address.`,
      );
      expect(await webhookUrls(strict, user.id)).toEqual([]);
    },
  );

  test("a URL is stored and listed as the host it is sent to: http://a\\@b/ is host a", async () => {
    const user = await createUser(strict.ctx);
    const token = await tokenFor(strict.ctx, user);
    // Reads as user "93.184.216.34\" at 127.0.0.1, but the backslash ends the host: it goes to 93.184.216.34.
    const typed = [
      "https://93.184.216.34\\@127.0.0.1/hook",
      "HTTPS://93.184.216.34:443/a/../hook",
      "https://0x5d.184.216.34/hook",
    ];
    const shown: string[] = [];
    for (const url of typed) {
      const response = await post(strictBase, token, { url });
      expect(response.status).toBe(201);
      shown.push((await readJson(response)).data.url);
    }
    expect(shown).toEqual([
      "https://93.184.216.34/@127.0.0.1/hook",
      "https://93.184.216.34/hook",
      "https://93.184.216.34/hook",
    ]);
    expect(await webhookUrls(strict, user.id)).toEqual(shown);
    // The other way round, the address check judges the real host, and names it.
    await expectInvalid(
      await post(strictBase, token, { url: "http://127.0.0.1\\@93.184.216.34/hook" }),
      "url",
      "The host 127.0.0.1 resolves to 127.0.0.1, a loopback or private address.",
    );
    // A row stored as typed by an older depot is listed in the same form.
    await strict.ctx.db.insert(webhooks).values({
      userId: user.id,
      url: "https://93.184.216.34\\@127.0.0.1/old",
      events: ["version.published"],
      secretSalt: "s",
    });
    const list = await readJson(await strict.request("/api/webhooks", { headers: bearer(token) }));
    expect(list.data.map((hook: { url: string }) => hook.url)).toEqual([
      ...shown,
      "https://93.184.216.34/@127.0.0.1/old",
    ]);
  });

  test("without WEBHOOK_ALLOW_PRIVATE, an IPv6 form of a public IPv4 address is accepted", async () => {
    const user = await createUser(strict.ctx);
    const token = await tokenFor(strict.ctx, user);
    const response = await post(strictBase, token, { url: "http://[64:ff9b::5db8:d822]/hook" });
    expect(response.status).toBe(201);
    expect(response.headers.get("content-type")).toStartWith("application/json");
    expect((await readJson(response)).data).toMatchObject({ url: "http://[64:ff9b::5db8:d822]/hook" });
    expect(await webhookUrls(strict, user.id)).toEqual(["http://[64:ff9b::5db8:d822]/hook"]);
  });

  test("someone else's endpoint is 404, as is an id that cannot be one", async () => {
    const owner = await tokenFor(t.ctx, await createUser(t.ctx));
    const stranger = await tokenFor(t.ctx, await createUser(t.ctx));
    const { id } = await register(owner, { url: "https://203.0.113.10/hook" });
    for (const path of [
      `/api/webhooks/${id}/deliveries`,
      "/api/webhooks/1e3/deliveries",
      "/api/webhooks/999999/deliveries",
    ]) {
      const response = await t.request(path, { headers: bearer(stranger) });
      expect(response.status).toBe(404);
      expect(await readJson(response)).toEqual({ message: "Webhook not found." });
    }
    // 404 before the query is looked at.
    expect(
      (await t.request(`/api/webhooks/${id}/deliveries?page=x`, { headers: bearer(stranger) })).status,
    ).toBe(404);
    const deleted = await t.request(`/api/webhooks/${id}`, { method: "DELETE", headers: bearer(stranger) });
    expect(deleted.status).toBe(404);
    const list = await readJson(await t.request("/api/webhooks", { headers: bearer(stranger) }));
    expect(list).toMatchObject({ data: [], meta: { from: null, to: null } });
    // Still there for its owner.
    expect(await deliveriesOf(owner, id)).toEqual([]);
    expect(
      (await t.request(`/api/webhooks/${id}/deliveries?page=0`, { headers: bearer(owner) })).status,
    ).toBe(422);
  });

  test("every route needs a token", async () => {
    for (const [method, path] of [
      ["POST", "/api/webhooks"],
      ["GET", "/api/webhooks"],
      ["DELETE", "/api/webhooks/1"],
      ["GET", "/api/webhooks/1/deliveries"],
    ] as const) {
      const response = await t.request(path, {
        method,
        ...(method === "POST"
          ? {
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ url: "https://203.0.113.10" }),
            }
          : {}),
      });
      expect({ method, path, status: response.status }).toEqual({ method, path, status: 401 });
    }
  });
});

// --- deliveries ----------------------------------------------------------------------------------

describe("deliveries", () => {
  test(
    "a publish reaches the holder's and the owner's endpoints once, signed per Standard Webhooks",
    async () => {
      const w = await world();
      const stranger = await tokenFor(t.ctx, await createUser(t.ctx));
      const holderHook = receiver();
      const ownerHook = receiver(() => new Response(null, { status: 204 }));
      const strangerHook = receiver();
      const holderEndpoint = await register(w.holderToken, { url: holderHook.url });
      const ownerEndpoint = await register(w.ownerToken, { url: ownerHook.url });
      await register(stranger, { url: strangerHook.url });

      const versionId = await publish(w.ownerToken, w.product);
      expect(
        await eventually(() => holderHook.received.length === 1 && ownerHook.received.length === 1),
      ).toBe(true);

      for (const [hook, endpoint, token, answer, user] of [
        [holderHook, holderEndpoint, w.holderToken, 200, w.holder],
        [ownerHook, ownerEndpoint, w.ownerToken, 204, w.owner],
      ] as const) {
        const [request] = hook.received;
        if (!request) throw new Error("nothing received");
        expect(request.headers["content-type"]).toBe("application/json");
        expect(request.headers["webhook-timestamp"]).toMatch(/^\d{10}$/);
        expect(Math.abs(Number(request.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(60);
        expect(request.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
        // The reference implementation verifies the signature with the secret shown at creation.
        const verified = new Webhook(endpoint.secret).verify(request.body, request.headers);
        expect(verified).toEqual({
          type: "version.published",
          timestamp: expect.stringMatching(ISO),
          data: expect.objectContaining({
            product_id: w.product.id,
            version_id: versionId,
            title: "A release",
          }),
        });
        // The download link is signed for the endpoint's owner, and downloads as them.
        const link = new URL(JSON.parse(request.body).data.download_url);
        expect(link.pathname).toBe(`/api/products/${w.product.id}/versions/${versionId}/download`);
        expect(link.searchParams.get("user")).toBe(String(user.id));
        expect((await fetch(`${base}${link.pathname}${link.search}`)).status).toBe(200);
        // …and refuses a body that was tampered with, or another endpoint's secret.
        expect(() => new Webhook(endpoint.secret).verify(`${request.body} `, request.headers)).toThrow();
        const otherSecret = endpoint === holderEndpoint ? ownerEndpoint.secret : holderEndpoint.secret;
        expect(() => new Webhook(otherSecret).verify(request.body, request.headers)).toThrow();

        // An RFC 4122 uuid (version 5 bits), derived per installation, not a bare hash of small ids.
        expect(request.headers["webhook-id"]).toMatch(
          /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}$/,
        );
        // webhook-id is the delivery's id in the owner's view of the endpoint.
        expect(
          await eventually(async () => (await deliveriesOf(token, endpoint.id))[0]?.attempts.length === 1),
        ).toBe(true);
        const deliveries = await deliveriesOf(token, endpoint.id);
        expect(deliveries).toEqual([
          {
            id: request.headers["webhook-id"],
            event: "version.published",
            status: "succeeded",
            payload: JSON.parse(request.body),
            attempts: [
              {
                attempt: 1,
                status_code: answer,
                duration_ms: expect.any(Number),
                error: null,
                created_at: expect.stringMatching(ISO),
              },
            ],
            last_attempt_at: expect.stringMatching(ISO),
            created_at: expect.stringMatching(ISO),
          },
        ]);
      }
      expect(strangerHook.received).toEqual([]); // not a holder, not an owner

      // A duplicated fan-out job adds no delivery and sends nothing twice.
      await notifyHolders(t.ctx, versionId);
      await notifyHolders(t.ctx, versionId);
      const rows = await t.ctx.db
        .select({ id: webhookDeliveries.id })
        .from(webhookDeliveries)
        .where(eq(webhookDeliveries.subjectId, versionId));
      expect(rows).toHaveLength(2);
      await Bun.sleep(3000); // longer than pg-boss's polling interval
      expect(holderHook.received).toHaveLength(1);
      expect(ownerHook.received).toHaveLength(1);
      expect(strangerHook.received).toHaveLength(0);
    },
    SLOW,
  );

  test(
    "a 500 is retried with backoff under the same webhook-id until the endpoint answers 2xx",
    async () => {
      const w = await world();
      const hook = receiver((n) => new Response(n === 1 ? "boom" : "ok", { status: n === 1 ? 500 : 200 }));
      const endpoint = await register(w.ownerToken, { url: hook.url });
      await publish(w.ownerToken, w.product);

      expect(
        await eventually(
          async () => (await deliveriesOf(w.ownerToken, endpoint.id))[0]?.attempts.length === 1,
        ),
      ).toBe(true);
      const [first] = await deliveriesOf(w.ownerToken, endpoint.id);
      expect(first.status).toBe("pending");
      expect(statusCodes(first)).toEqual([500]);

      // pg-boss holds the job back: 300 s doubled per retry, with jitter (retryDelay × 1…2 the first time).
      expect(await eventually(async () => (await jobState(first.id))?.state === "retry")).toBe(true);
      const job = await jobState(first.id);
      expect(job?.delay).toBeGreaterThan(
        webhookDelivery.options?.retryDelay ? webhookDelivery.options.retryDelay - 30 : 0,
      );
      // Bring the retry forward rather than waiting five minutes; the worker runs it as it would then.
      await t.ctx.db.execute(sql`UPDATE pgboss.job SET start_after = now() WHERE id = ${first.id}`);

      expect(
        await eventually(
          async () => (await deliveriesOf(w.ownerToken, endpoint.id))[0]?.status === "succeeded",
        ),
      ).toBe(true);
      const [delivery] = await deliveriesOf(w.ownerToken, endpoint.id);
      expect(statusCodes(delivery)).toEqual([500, 200]);
      expect(delivery.attempts.map((attempt: { attempt: number }) => attempt.attempt)).toEqual([1, 2]);
      expect(hook.received).toHaveLength(2);
      expect(hook.received.map((request) => request.headers["webhook-id"])).toEqual([
        delivery.id,
        delivery.id,
      ]);
      for (const request of hook.received) {
        expect(() => new Webhook(endpoint.secret).verify(request.body, request.headers)).not.toThrow();
      }
      expect(await eventually(async () => (await jobState(delivery.id))?.state === "completed")).toBe(true);
    },
    SLOW,
  );

  test("the last retry marks the delivery failed", async () => {
    const token = await tokenFor(t.ctx, await createUser(t.ctx));
    const hook = receiver(() => new Response("down", { status: 503 }));
    const endpoint = await register(token, { url: hook.url });
    const id = await deliveryRow(t, endpoint.id);
    const handle = webhookDelivery.handle;
    if (!handle) throw new Error("no handler");
    const retryLimit = webhookDelivery.options?.retryLimit ?? 0;
    expect(retryLimit).toBe(8);

    await expect(handle(t.ctx, { delivery_id: id }, { id, retryCount: 0 })).rejects.toThrow(DeliveryFailed);
    const [pending] = await deliveriesOf(token, endpoint.id);
    expect(pending.status).toBe("pending");
    expect(statusCodes(pending)).toEqual([503]);

    await expect(handle(t.ctx, { delivery_id: id }, { id, retryCount: retryLimit })).rejects.toThrow(
      DeliveryFailed,
    );
    const [delivery] = await deliveriesOf(token, endpoint.id);
    expect(delivery.status).toBe("failed");
    expect(statusCodes(delivery)).toEqual([503, 503]);
    // Once failed the endpoint stays enabled: only 410 disables it.
    const [listed] = (await readJson(await t.request("/api/webhooks", { headers: bearer(token) }))).data;
    expect(listed.disabled_at).toBeNull();
  });

  test(
    "410 Gone disables the endpoint: no retry, no further deliveries",
    async () => {
      const w = await world();
      const hook = receiver(() => new Response("gone", { status: 410 }));
      const endpoint = await register(w.ownerToken, { url: hook.url });
      await publish(w.ownerToken, w.product);

      expect(
        await eventually(async () => (await deliveriesOf(w.ownerToken, endpoint.id))[0]?.status === "failed"),
      ).toBe(true);
      const [delivery] = await deliveriesOf(w.ownerToken, endpoint.id);
      expect(statusCodes(delivery)).toEqual([410]);
      const [listed] = (await readJson(await t.request("/api/webhooks", { headers: bearer(w.ownerToken) })))
        .data;
      expect(listed.disabled_at).toMatch(ISO);
      expect(await eventually(async () => (await jobState(delivery.id))?.state === "completed")).toBe(true);

      // The next version has no delivery for the disabled endpoint…
      await publish(w.ownerToken, w.product);
      await Bun.sleep(3000);
      expect(await deliveriesOf(w.ownerToken, endpoint.id)).toHaveLength(1);
      expect(hook.received).toHaveLength(1);
      // …and a delivery still queued for it is dropped without an attempt.
      const queued = await deliveryRow(t, endpoint.id);
      expect(await deliverWebhook(t.ctx, queued, { lastAttempt: false })).toBe("skipped");
      expect(hook.received).toHaveLength(1);
      const again = await deliveriesOf(w.ownerToken, endpoint.id);
      expect(again.find((d) => d.id === queued)).toMatchObject({ status: "pending", attempts: [] });
    },
    SLOW,
  );

  test("a hanging endpoint times out and the attempt is recorded", async () => {
    const token = await tokenFor(t.ctx, await createUser(t.ctx));
    const hook = receiver(() => new Promise<Response>(() => {}));
    const endpoint = await register(token, { url: hook.url });
    const id = await deliveryRow(t, endpoint.id);

    const started = Date.now();
    await expect(deliverWebhook(t.ctx, id, { lastAttempt: false, timeoutMs: 300 })).rejects.toThrow(
      "Timed out after 300 ms.",
    );
    expect(Date.now() - started).toBeLessThan(3000);
    const [delivery] = await deliveriesOf(token, endpoint.id);
    expect(delivery).toMatchObject({ id, status: "pending" });
    expect(delivery.attempts).toEqual([
      {
        attempt: 1,
        status_code: null,
        duration_ms: expect.any(Number),
        error: "Timed out after 300 ms.",
        created_at: expect.stringMatching(ISO),
      },
    ]);
    expect(delivery.attempts[0].duration_ms).toBeGreaterThanOrEqual(250);
  });

  test("an endpoint that is down is a recorded network error, and a redirect is not followed", async () => {
    const token = await tokenFor(t.ctx, await createUser(t.ctx));
    const down = receiver();
    await down.server.stop(true);
    const endpoint = await register(token, { url: down.url });
    const id = await deliveryRow(t, endpoint.id);
    await expect(deliverWebhook(t.ctx, id, { lastAttempt: false })).rejects.toThrow(DeliveryFailed);
    const [delivery] = await deliveriesOf(token, endpoint.id);
    const [attempt] = delivery.attempts;
    expect(attempt.status_code).toBeNull();
    expect(typeof attempt.error).toBe("string");
    expect(attempt.error.length).toBeGreaterThan(0);

    const target = receiver();
    const redirecting = receiver(() => Response.redirect(target.url, 307));
    const moved = await register(token, { url: redirecting.url });
    const movedId = await deliveryRow(t, moved.id);
    await expect(deliverWebhook(t.ctx, movedId, { lastAttempt: false })).rejects.toThrow(DeliveryFailed);
    expect(target.received).toHaveLength(0);
    const [redirected] = await deliveriesOf(token, moved.id);
    expect(redirected.attempts[0]).toMatchObject({ status_code: 307, error: "Redirects are not followed." });
  });

  test("the address is checked again at delivery time (DNS rebinding): refused, the delivery fails at once", async () => {
    // An endpoint whose name resolved to a public address when it was registered and to loopback now:
    // written directly, since the API would refuse it.
    const user = await createUser(strict.ctx);
    const token = await tokenFor(strict.ctx, user);
    const hook = receiver();
    const [row] = await strict.ctx.db
      .insert(webhooks)
      .values({ userId: user.id, url: hook.url, events: ["version.published"], secretSalt: "salt" })
      .returning();
    if (!row) throw new Error("no webhook");
    const id = await deliveryRow(strict, row.id);
    expect(await deliverWebhook(strict.ctx, id, { lastAttempt: false })).toBe("refused");
    expect(hook.received).toHaveLength(0);
    const [delivery] = await deliveriesOf(token, row.id, strict);
    expect(delivery.status).toBe("failed");
    expect(delivery.attempts).toEqual([
      {
        attempt: 1,
        status_code: null,
        duration_ms: 0,
        error: "Refused: The host 127.0.0.1 resolves to 127.0.0.1, a loopback or private address.",
        created_at: expect.stringMatching(ISO),
      },
    ]);
  });

  test(
    "through the job queue: a refused address fails the delivery with no retry, an unresolvable host is retried",
    async () => {
      const w = await world(strict);
      const hook = receiver();
      // Both written directly, as if registered while the names resolved to a public address.
      const [refused, unresolved] = await strict.ctx.db
        .insert(webhooks)
        .values([
          { userId: w.owner.id, url: hook.url, events: ["version.published"], secretSalt: "a" },
          {
            userId: w.owner.id,
            url: "http://depot-test.invalid/hook",
            events: ["version.published"],
            secretSalt: "b",
          },
        ])
        .returning();
      if (!refused || !unresolved) throw new Error("no webhooks");
      const warn = spyOn(strict.ctx.log, "warn");
      try {
        await publish(w.ownerToken, w.product, strictBase);
        const deliveries = async (webhookId: number) => {
          const response = await fetch(`${strictBase}/api/webhooks/${webhookId}/deliveries`, {
            headers: bearer(w.ownerToken),
          });
          expect(response.status).toBe(200);
          expect(response.headers.get("content-type")).toStartWith("application/json");
          return (await readJson(response)).data;
        };

        expect(await eventually(async () => (await deliveries(refused.id))[0]?.status === "failed")).toBe(
          true,
        );
        const [failed] = await deliveries(refused.id);
        expect(failed).toEqual({
          id: expect.any(String),
          event: "version.published",
          status: "failed",
          payload: expect.objectContaining({ type: "version.published" }),
          attempts: [
            {
              attempt: 1,
              status_code: null,
              duration_ms: 0,
              error: "Refused: The host 127.0.0.1 resolves to 127.0.0.1, a loopback or private address.",
              created_at: expect.stringMatching(ISO),
            },
          ],
          last_attempt_at: expect.stringMatching(ISO),
          created_at: expect.stringMatching(ISO),
        });
        expect(hook.received).toHaveLength(0);
        // The job ended: no retry is scheduled.
        expect(await eventually(async () => (await jobState(failed.id, strict))?.state === "completed")).toBe(
          true,
        );
        expect(warn).toHaveBeenCalledWith(
          "webhook delivery refused by the address check, failed without retry",
          expect.objectContaining({ delivery_id: failed.id, webhook_id: refused.id, final: true }),
        );

        // A DNS failure may pass: the delivery stays pending and pg-boss schedules a retry.
        expect(
          await eventually(async () => (await deliveries(unresolved.id))[0]?.attempts.length === 1),
        ).toBe(true);
        const [pending] = await deliveries(unresolved.id);
        expect(pending).toMatchObject({ status: "pending", attempts: [{ attempt: 1, status_code: null }] });
        expect(pending.attempts[0].error).toMatch(/^The host depot-test\.invalid could not be resolved/);
        expect(await eventually(async () => (await jobState(pending.id, strict))?.state === "retry")).toBe(
          true,
        );
      } finally {
        warn.mockRestore();
      }
    },
    SLOW,
  );

  test("deliveries are listed newest first, a page at a time", async () => {
    const token = await tokenFor(t.ctx, await createUser(t.ctx));
    const endpoint = await register(token, { url: receiver().url });
    const older = await deliveryRow(t, endpoint.id);
    await Bun.sleep(5);
    const newer = await deliveryRow(t, endpoint.id);
    const path = `/api/webhooks/${endpoint.id}/deliveries`;
    const first = await readJson(await t.request(`${path}?per_page=1`, { headers: bearer(token) }));
    expect(first.data.map((d: { id: string }) => d.id)).toEqual([newer]);
    expect(first.links.next).toBe(`http://depot.test${path}?per_page=1&page=2`);
    const second = await readJson(await t.request(`${path}?per_page=1&page=2`, { headers: bearer(token) }));
    expect(second.data.map((d: { id: string }) => d.id)).toEqual([older]);
    expect(second.links.next).toBeNull();
    expect(second.meta).toEqual({
      current_page: 2,
      from: 2,
      path: `http://depot.test${path}`,
      per_page: 1,
      to: 2,
    });
  });

  test("a deleted endpoint's queued delivery is dropped", async () => {
    const token = await tokenFor(t.ctx, await createUser(t.ctx));
    const hook = receiver();
    const endpoint = await register(token, { url: hook.url });
    const id = await deliveryRow(t, endpoint.id);
    expect(
      (await t.request(`/api/webhooks/${endpoint.id}`, { method: "DELETE", headers: bearer(token) })).status,
    ).toBe(204);
    expect(await deliverWebhook(t.ctx, id, { lastAttempt: false })).toBe("skipped");
    expect(hook.received).toHaveLength(0);
  });
});
