import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { bearer, readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import {
  apiKeyFor,
  createBenefit,
  createOption,
  createProduct,
  createPurchase,
  createUser,
  tokenFor,
} from "./helpers/factories.ts";
import { publishedVersion } from "./helpers/publish.ts";
import { signIn, userWithPassword } from "./helpers/sessions.ts";

// What a customer may download, over a real socket and database: the download route with the
// dashboard's session cookie (the same rules as a bearer token), GET /api/downloads, and the version
// list for holders of a product that is not listed.
let t: TestApp;
let base: string;
const PASSWORD = "correct horse battery";
const sha256 = (bytes: string | Uint8Array) => createHash("sha256").update(bytes).digest("hex");

type User = Awaited<ReturnType<typeof createUser>>;
type Product = Awaited<ReturnType<typeof createProduct>>;
let vendor: User;
let vendorToken: string;
let holder: User;
let holderSession: { cookie: string; csrf: string };
let outsider: User;
let outsiderSession: { cookie: string; csrf: string };
let apiKey: string;
/** Listed, with a product version, a benefit version and a benefit the holder bought. */
let listed: Product;
/** Hidden: only its owner, admins and holders know it. */
let hidden: Product;
const versions: Record<string, { id: number; bytes: string; sha256: string }> = {};
const benefits: Record<string, { id: number; name: string }> = {};

async function license(owner: User, product: Product, fields: Record<string, unknown> = {}) {
  const response = await fetch(`${base}/api/v1/licenses`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": apiKey },
    body: JSON.stringify({
      ownerId: String(owner.id),
      creatorId: String(vendor.id),
      productId: String(product.id),
      ...fields,
    }),
  });
  expect(response.status).toBe(201);
  return readJson(response);
}

async function publish(name: string, product: Product, version: string, benefitId?: number) {
  const bytes = `${name} ${crypto.randomUUID()}`;
  const data = await publishedVersion(base, vendorToken, product.id, { name: version, bytes, benefitId });
  versions[name] = { id: data.id, bytes, sha256: sha256(bytes) };
  return data;
}

beforeAll(async () => {
  // Publishing queues its notification job in the same transaction: pg-boss must be able to send.
  t = await startTestApp({ jobs: "send" });
  base = t.listen();
  vendor = await createUser(t.ctx, { role: "vendor" });
  vendorToken = await tokenFor(t.ctx, vendor);
  apiKey = (await apiKeyFor(t.ctx)).key;
  holder = await userWithPassword(t.ctx, PASSWORD);
  outsider = await userWithPassword(t.ctx, PASSWORD);
  holderSession = await signIn(base, holder.email, PASSWORD);
  outsiderSession = await signIn(base, outsider.email, PASSWORD);

  listed = await createProduct(t.ctx, vendor, { name: "Alpha Listed" });
  hidden = await createProduct(t.ctx, vendor, { name: "Beta Hidden", hidden: true });
  const gold = await createOption(t.ctx, listed);
  const silver = await createOption(t.ctx, listed);
  const support = await createBenefit(t.ctx, { id: gold.id, productId: listed.id });
  const extras = await createBenefit(t.ctx, { id: silver.id, productId: listed.id });
  benefits.bought = { id: support.id, name: support.name };
  benefits.notBought = { id: extras.id, name: extras.name };
  await createPurchase(t.ctx, holder, listed, { option_id: gold.id });

  await publish("listedOld", listed, "1.0.0");
  await publish("listedNew", listed, "1.1.0");
  await publish("bought", listed, "2.0.0", support.id);
  await publish("notBought", listed, "3.0.0", extras.id);
  await publish("hidden", hidden, "0.9.0");

  await license(holder, listed);
  await license(holder, hidden);
}, 60_000);
afterAll(() => t.close());

const downloadPath = (product: Product, name: string) =>
  `/api/products/${product.id}/versions/${versions[name]?.id}/download`;
const withCookie = (session: { cookie: string }, method = "GET") => ({
  method,
  headers: { cookie: session.cookie },
});

describe("downloading with the dashboard's session", () => {
  test("a holder's session downloads: the bytes, their SHA-256 and the attachment header", async () => {
    for (const [product, name] of [
      [listed, "listedNew"],
      [hidden, "hidden"],
      [listed, "bought"],
    ] as const) {
      const response = await fetch(`${base}${downloadPath(product, name)}`, withCookie(holderSession));
      expect({ name, status: response.status }).toEqual({ name, status: 200 });
      expect(response.headers.get("content-disposition")).toBe('attachment; filename="release.bin"');
      const bytes = new Uint8Array(await response.arrayBuffer());
      expect(new TextDecoder().decode(bytes)).toBe(versions[name]?.bytes ?? "");
      expect(sha256(bytes)).toBe(versions[name]?.sha256 ?? "");
      expect(response.headers.get("etag")).toBe(`"${versions[name]?.sha256}"`);
    }
  }, 30_000);

  test("HEAD with the session: the headers, no body", async () => {
    const response = await fetch(
      `${base}${downloadPath(listed, "listedOld")}`,
      withCookie(holderSession, "HEAD"),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-length")).toBe(String(versions.listedOld?.bytes.length));
    expect(response.headers.get("content-disposition")).toBe('attachment; filename="release.bin"');
    expect(await response.text()).toBe("");
  }, 30_000);

  test("a session is refused exactly as the same user's bearer token is", async () => {
    const outsiderToken = await tokenFor(t.ctx, outsider);
    const holderToken = await tokenFor(t.ctx, holder);
    const cases = [
      // A listed product the outsider does not hold: 403.
      {
        who: "outsider",
        session: outsiderSession,
        token: outsiderToken,
        path: downloadPath(listed, "listedNew"),
        status: 403,
        message: "This action is unauthorized.",
      },
      // A hidden one: as unknown as a product that does not exist.
      {
        who: "outsider",
        session: outsiderSession,
        token: outsiderToken,
        path: downloadPath(hidden, "hidden"),
        status: 404,
        message: "Product not found.",
      },
      // A benefit the holder did not buy.
      {
        who: "holder",
        session: holderSession,
        token: holderToken,
        path: downloadPath(listed, "notBought"),
        status: 403,
        message: "This action is unauthorized.",
      },
    ];
    for (const { who, session, token, path, status, message } of cases) {
      const bySession = await fetch(`${base}${path}`, withCookie(session));
      const byToken = await fetch(`${base}${path}`, { headers: bearer(token) });
      expect({ who, path, session: bySession.status, token: byToken.status }).toEqual({
        who,
        path,
        session: status,
        token: status,
      });
      expect(await readJson(bySession)).toEqual({ message });
      expect(await readJson(byToken)).toEqual({ message });
    }
  }, 30_000);

  test("no cookie, a dead session, or a bad Authorization header beside a good cookie: 401", async () => {
    const path = `${base}${downloadPath(listed, "listedNew")}`;
    const cases: Record<string, string>[] = [
      {},
      { cookie: "depot_session=not-a-session" },
      { cookie: holderSession.cookie, authorization: "Bearer garbled" },
      { cookie: holderSession.cookie, authorization: "Basic dXNlcjpwYXNz" },
    ];
    for (const headers of cases) {
      const response = await fetch(path, { headers });
      expect(response.status).toBe(401);
      expect(await readJson(response)).toEqual({ message: "Unauthenticated." });
    }
  }, 30_000);

  test("a revoked license's session is refused from then on", async () => {
    const later = await userWithPassword(t.ctx, PASSWORD);
    const { id } = await license(later, listed);
    const session = await signIn(base, later.email, PASSWORD);
    const path = `${base}${downloadPath(listed, "listedNew")}`;
    expect((await fetch(path, withCookie(session))).status).toBe(200);
    const revoke = await fetch(`${base}/api/v1/licenses/${id}`, {
      method: "DELETE",
      headers: { "x-api-key": apiKey },
    });
    expect(revoke.status).toBe(204);
    expect((await fetch(path, withCookie(session))).status).toBe(403);
  }, 30_000);
});

describe("GET /api/downloads", () => {
  test("each held product with its newest release and the newest of each benefit the holder bought", async () => {
    const response = await fetch(`${base}/api/downloads`, withCookie(holderSession));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/json");
    const { data } = await readJson(response);
    // By product name; the hidden product too, since its holder may download from it.
    expect(data.map((d: { product: unknown }) => d.product)).toEqual([
      { id: listed.id, name: "Alpha Listed" },
      { id: hidden.id, name: "Beta Hidden" },
    ]);
    const [alpha, beta] = data;
    expect(alpha.latest).toMatchObject({
      id: versions.listedNew?.id,
      product_id: String(listed.id),
      purchase_benefit_id: null,
      version_number: "1.1.0",
      title: "t",
      changelog: "c",
      changelog_format: "markdown",
      download_url: `http://depot.test${downloadPath(listed, "listedNew")}`,
      file_name: "release.bin",
      file_size: versions.listedNew?.bytes.length,
      sha256: versions.listedNew?.sha256,
    });
    // Only the benefit bought: the other option's benefit is not theirs.
    expect(alpha.benefits).toEqual([
      {
        id: benefits.bought?.id,
        name: benefits.bought?.name,
        latest: expect.objectContaining({ id: versions.bought?.id, benefit_name: benefits.bought?.name }),
      },
    ]);
    expect(beta).toEqual({
      product: { id: hidden.id, name: "Beta Hidden" },
      latest: expect.objectContaining({ id: versions.hidden?.id, version_number: "0.9.0" }),
      benefits: [],
    });
  }, 30_000);

  test("a held product with nothing published yet has latest null; expired and revoked licenses hold nothing", async () => {
    const customer = await createUser(t.ctx);
    const fresh = await createProduct(t.ctx, vendor, { name: "Gamma Fresh" });
    const lapsed = await createProduct(t.ctx, vendor, { name: "Delta Lapsed" });
    const revokedProduct = await createProduct(t.ctx, vendor, { name: "Epsilon Revoked" });
    await license(customer, fresh);
    await license(customer, lapsed, { expires: "2020-01-01T00:00:00Z" });
    const { id } = await license(customer, revokedProduct);
    await fetch(`${base}/api/v1/licenses/${id}`, { method: "DELETE", headers: { "x-api-key": apiKey } });
    // Two licenses of one product list it once.
    await license(customer, fresh);

    const response = await fetch(`${base}/api/downloads`, {
      headers: bearer(await tokenFor(t.ctx, customer)),
    });
    expect(response.status).toBe(200);
    expect(await readJson(response)).toEqual({
      data: [{ product: { id: fresh.id, name: "Gamma Fresh" }, latest: null, benefits: [] }],
    });
  }, 30_000);

  test("someone holding nothing gets an empty list; without credentials a 401", async () => {
    const response = await fetch(`${base}/api/downloads`, withCookie(outsiderSession));
    expect(response.status).toBe(200);
    expect(await readJson(response)).toEqual({ data: [] });
    const anonymous = await fetch(`${base}/api/downloads`);
    expect(anonymous.status).toBe(401);
    expect(await readJson(anonymous)).toEqual({ message: "Unauthenticated." });
  }, 30_000);
});

describe("older versions: GET /api/products/:p/versions for holders", () => {
  test("the holder of a hidden product lists, reads and gets the latest of its versions", async () => {
    const list = await fetch(`${base}/api/products/${hidden.id}/versions`, withCookie(holderSession));
    expect(list.status).toBe(200);
    expect((await readJson(list)).data.map((v: { id: number }) => v.id)).toEqual([versions.hidden?.id]);
    const latest = await fetch(
      `${base}/api/products/${hidden.id}/versions/latest`,
      withCookie(holderSession),
    );
    expect((await readJson(latest)).data.id).toBe(versions.hidden?.id);
    const one = await fetch(
      `${base}/api/products/${hidden.id}/versions/${versions.hidden?.id}`,
      withCookie(holderSession),
    );
    expect((await readJson(one)).data.sha256).toBe(versions.hidden?.sha256);
  }, 30_000);

  test("to others, and to a holder whose license lapsed, the hidden product stays unknown", async () => {
    const lapsed = await createUser(t.ctx);
    await license(lapsed, hidden, { expires: "2020-01-01T00:00:00Z" });
    for (const headers of [withCookie(outsiderSession).headers, bearer(await tokenFor(t.ctx, lapsed))]) {
      for (const path of ["", "/latest", `/${versions.hidden?.id}`]) {
        const response = await fetch(`${base}/api/products/${hidden.id}/versions${path}`, { headers });
        expect({ path, status: response.status }).toEqual({ path, status: 404 });
        expect(await readJson(response)).toEqual({ message: "Product not found." });
      }
    }
  }, 30_000);

  test("a listed product's versions, newest first, for any signed-in user (as before)", async () => {
    const list = await fetch(`${base}/api/products/${listed.id}/versions`, withCookie(outsiderSession));
    expect(list.status).toBe(200);
    expect((await readJson(list)).data.map((v: { version_number: string }) => v.version_number)).toEqual([
      "3.0.0",
      "2.0.0",
      "1.1.0",
      "1.0.0",
    ]);
  }, 30_000);
});
