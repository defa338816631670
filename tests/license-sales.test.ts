import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { count, eq } from "drizzle-orm";
import { emailMatches } from "../src/db/email-key.ts";
import { licenses, roles, users } from "../src/db/schema/index.ts";
import { readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { apiKeyFor, createProduct, createUser } from "./helpers/factories.ts";
import { type Inbox, startInbox, until } from "./helpers/inbox.ts";

/**
 * Selling to a new buyer in one call (docs/vendors.md, Selling to a new buyer): `POST /api/v1/licenses`
 * with `ownerEmail` makes the customer, and a real SMTP server on loopback receives their key and a
 * set-password link from the job workers.
 */

const KEY = /^[0-9A-HJKMNP-TV-Z]{5}(-[0-9A-HJKMNP-TV-Z]{5}){4}$/;
const LINK = /http:\/\/depot\.test\/set-password\?token=([1-9]\d*\.\d+\.[A-Za-z0-9_-]{43})/;

let t: TestApp;
let base: string;
let inbox: Inbox;
let vendor: { id: number };
let otherVendor: { id: number };
let product: { id: number; name: string };
let vendorKey: string;

beforeAll(async () => {
  inbox = await startInbox();
  t = await startTestApp({
    env: { SMTP_URL: `smtp://127.0.0.1:${inbox.port}`, MAIL_FROM: "Depot <depot@depot.test>" },
    jobs: "workers",
  });
  base = t.listen();
  vendor = await createUser(t.ctx, { role: "vendor" });
  otherVendor = await createUser(t.ctx, { role: "vendor" });
  product = await createProduct(t.ctx, vendor);
  vendorKey = (await apiKeyFor(t.ctx, vendor.id)).key;
}, 60_000);
afterAll(async () => {
  await t.close();
  await inbox.close();
}, 15_000);

const sell = (body: Record<string, unknown>, key = vendorKey) =>
  fetch(`${base}/api/v1/licenses`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": key },
    body: JSON.stringify({ creatorId: String(vendor.id), productId: String(product.id), ...body }),
  });

const userByEmail = async (email: string) =>
  (await t.ctx.db.select().from(users).where(emailMatches(users.email, email)))[0];

const mailTo = (address: string) =>
  until(`mail to ${address}`, () => inbox.messages.find((m) => m.envelopeTo.includes(address)));

describe("ownerEmail", () => {
  test("an unknown address becomes a customer, e-mailed the key and a set-password link", async () => {
    const email = `buyer-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const response = await sell({ ownerEmail: email, ownerName: "Ada Buyer" });
    expect(response.status).toBe(201);
    expect(response.headers.get("content-type")).toContain("application/json");
    const license = await readJson(response);
    expect(license.key).toMatch(KEY);

    const customer = await userByEmail(email);
    expect(customer?.name).toBe("Ada Buyer");
    expect(customer?.passwordHash).toBeNull();
    const [role] = await t.ctx.db
      .select()
      .from(roles)
      .where(eq(roles.id, customer?.roleId ?? 0));
    expect(role?.name).toBe("customer");
    // The answer is the License as it always was, owned by the new customer.
    expect(license.userId).toBe(String(customer?.id));
    expect(license.creatorId).toBe(String(vendor.id));

    const { mail, envelopeFrom } = await mailTo(email);
    expect(envelopeFrom).toBe("depot@depot.test");
    expect(mail.subject).toBe(`Your license key for ${product.name}`);
    expect(mail.text).toContain("Hello Ada Buyer,");
    expect(mail.text).toContain(license.key);
    const token = LINK.exec(mail.text ?? "")?.[1] ?? "";
    expect(token).not.toBe("");
    expect(mail.html).toContain(license.key);

    // The link works: it names the customer, and sets their password once.
    const greeting = await fetch(`${base}/api/auth/password-link?token=${encodeURIComponent(token)}`);
    expect(greeting.status).toBe(200);
    expect((await readJson(greeting)).data.email).toBe(email);
    const set = await fetch(`${base}/api/auth/set-password`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        origin: "http://depot.test",
        "sec-fetch-site": "same-origin",
      },
      body: JSON.stringify({ token, password: "a customer password" }),
    });
    expect(set.status).toBe(204);
  }, 30_000);

  test("without a name the customer is called by the address's local part", async () => {
    const email = `grace-${crypto.randomUUID().slice(0, 8)}@example.com`;
    expect((await sell({ ownerEmail: email })).status).toBe(201);
    expect((await userByEmail(email))?.name).toBe(email.split("@")[0]);
    const { mail } = await mailTo(email);
    expect(mail.text).toContain(`Hello ${email.split("@")[0]},`);
  }, 30_000);

  test("a known address (any case) gets the license and no new user, and no e-mail", async () => {
    const known = await createUser(t.ctx, { email: `known-${crypto.randomUUID().slice(0, 8)}@example.com` });
    const [before] = await t.ctx.db.select({ n: count() }).from(users);
    const response = await sell({ ownerEmail: known.email.toUpperCase(), ownerName: "Ignored" });
    expect(response.status).toBe(201);
    expect((await readJson(response)).userId).toBe(String(known.id));
    const [after] = await t.ctx.db.select({ n: count() }).from(users);
    expect(after?.n).toBe(before?.n ?? -1);
    expect((await userByEmail(known.email))?.name).toBe(known.name);
    await Bun.sleep(500);
    expect(inbox.messages.some((m) => m.envelopeTo.includes(known.email))).toBe(false);
  }, 30_000);

  test("two sales to one new address at once make one customer with two licenses", async () => {
    const email = `twice-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const answers = await Promise.all([sell({ ownerEmail: email }), sell({ ownerEmail: email })]);
    expect(answers.map((r) => r.status)).toEqual([201, 201]);
    const owners = await Promise.all(answers.map(async (r) => (await readJson(r)).userId));
    expect(owners[0]).toBe(owners[1]);
    const [held] = await t.ctx.db
      .select({ n: count() })
      .from(licenses)
      .where(eq(licenses.userId, Number(owners[0])));
    expect(held?.n).toBe(2);
  }, 30_000);
});

describe("bad input", () => {
  test("neither ownerId nor ownerEmail: 422 on ownerId", async () => {
    const response = await sell({});
    expect(response.status).toBe(422);
    const body = await readJson(response);
    expect(body.errors).toEqual({
      ownerId: ["The ownerId field is required."],
    });
    expect(typeof body.message).toBe("string");
  });

  test("both: 422 on ownerEmail, and no user is made", async () => {
    const email = `both-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const response = await sell({ ownerId: String(vendor.id), ownerEmail: email });
    expect(response.status).toBe(422);
    expect((await readJson(response)).errors).toEqual({
      ownerEmail: ["The ownerEmail field prohibits ownerId from being present."],
    });
    expect(await userByEmail(email)).toBeUndefined();
  });

  test("not an address: 422 on ownerEmail", async () => {
    const response = await sell({ ownerEmail: "not an address" });
    expect(response.status).toBe(422);
    expect((await readJson(response)).errors.ownerEmail).toEqual([
      "The ownerEmail field must be a valid email address.",
    ]);
  });

  test("a key of another creator: 403, and no customer is left behind", async () => {
    const email = `refused-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const otherKey = (await apiKeyFor(t.ctx, otherVendor.id)).key;
    const response = await sell({ ownerEmail: email }, otherKey);
    expect(response.status).toBe(403);
    expect(typeof (await readJson(response)).message).toBe("string");
    expect(await userByEmail(email)).toBeUndefined();
  });

  test("ownerEmail is not a field of a change", async () => {
    const created = await readJson(await sell({ ownerId: String(vendor.id) }));
    const response = await fetch(`${base}/api/v1/licenses/${created.id}`, {
      method: "PATCH",
      headers: { "content-type": "application/json", "x-api-key": vendorKey },
      body: JSON.stringify({ ownerEmail: "someone@example.com" }),
    });
    expect(response.status).toBe(422);
  });
});
