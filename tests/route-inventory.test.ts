import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { artifacts, licensePolicies, notifications, webhookDeliveries } from "../src/db/schema/index.ts";
import { deleteApiKey } from "../src/features/api-keys/service.ts";
import { createLicense } from "../src/features/licenses/service.ts";
import { createWebhook } from "../src/features/webhooks/service.ts";
import { bearer, startTestApp, type TestApp } from "./helpers/app.ts";
import { type Access, authMatrix, type GuardedRoute } from "./helpers/auth-matrix.ts";
import {
  apiKeyFor,
  createBenefit,
  createOption,
  createProduct,
  createRole,
  createUser,
  insertVersionRow,
  tokenFor,
} from "./helpers/factories.ts";

/**
 * Every route the app serves is either in the auth matrix below (no credentials, wrong credentials,
 * a caller without the right, the owner, the admin) or on a short public list. The list of routes is
 * read from the app itself, so a route added without an entry here fails this file.
 */

/**
 * Routes anyone may call: the key is the credential (validate, checkout, download), or there is nothing
 * to guard (the public signing keys).
 */
const PUBLIC = new Set([
  "GET /api/health",
  "GET /api/health/ready",
  // Guarded by METRICS_TOKEN, not by a user's token: tests/metrics.test.ts covers it.
  "GET /metrics",
  "POST /api/v1/licenses/validate",
  "POST /api/v1/licenses/checkout",
  // Machines: the license key is the credential (in the body, or `Authorization: License <key>`);
  // tests/machines.test.ts checks their 401, another license's 404 and an API key's scope.
  "POST /api/v1/licenses/activate",
  "POST /api/v1/machines/:id/heartbeat",
  "DELETE /api/v1/machines/:id",
  "GET /.well-known/jwks.json",
  "GET /api/v1/keys",
  // Downloads also take a bearer token or the dashboard's session, each checked by
  // tests/versions-download.test.ts and tests/downloads-api.test.ts (401, 403, a hidden product's 404).
  "GET /api/products/:product/versions/:version/download",
  "HEAD /api/products/:product/versions/:version/download",
  // One file of a version: the same download rules (tests/release-artifacts.test.ts: 401, a draft's 404).
  "GET /api/products/:product/versions/:version/artifacts/:artifact/download",
  "HEAD /api/products/:product/versions/:version/artifacts/:artifact/download",
  // The update feeds and their files: the license key in `Authorization: License …` is the credential
  // (a free product's need none). tests/update-feeds-electron.test.ts checks 401, 403 and a hidden
  // product's 404 for feeds and files, tests/update-feeds-formats.test.ts each feed's 401.
  "GET /updates/:product/files/:version/:file",
  "HEAD /updates/:product/files/:version/:file",
  "GET /updates/:product/electron/:file",
  "GET /updates/:product/tauri/:target/:arch/:current_version",
  "GET /updates/:product/squirrel/darwin/:arch/:current_version",
  "GET /updates/:product/sparkle/appcast.xml",
  "GET /api/v1/products/:product/upgrade",
  "GET /docs",
  "GET /docs/json",
  "GET /storage/*",
  "GET /products/:slug",
  // The binary itself, for CI jobs (tests/cli-publish.test.ts; the smoke test downloads it).
  "GET /client/depot",
  // The release's checksums and their signature, which install.sh checks the binary with.
  "GET /client/SHA256SUMS",
  "GET /client/SHA256SUMS.minisig",
  // tus capability discovery: what the server speaks, nothing about anyone's uploads.
  "OPTIONS /api/uploads",
  "OPTIONS /api/uploads/:id",
  // A HEAD answer has no body for the matrix to read: tests/resumable-uploads.test.ts checks its
  // 401, 403 and another user's 404.
  "HEAD /api/uploads/:id",
  // The dashboard's HTML shell and its hashed script and stylesheet: the same public page for everyone,
  // which then signs in through the API (tests/dashboard.test.ts).
  "GET /",
  "GET /sign-in",
  "GET /dashboard",
  "GET /dashboard/*",
  "GET /dashboard/assets/:file",
  // The same icon for whatever asks for it there (tests/dashboard.test.ts).
  "GET /favicon.ico",
  // Dashboard sign-in: the e-mail and password are the credential.
  "POST /api/auth/sign-in",
  // Guarded by the depot_session cookie (and CSRF), which the bearer matrix cannot send:
  // tests/sessions.test.ts checks their 401 without or with a dead session, 403 and 419.
  "GET /api/auth/session",
  "POST /api/auth/sign-out",
  "POST /api/auth/sign-out-everywhere",
  // Set-password links: the signed one-time token is the credential (tests/password-links.test.ts).
  "GET /api/auth/password-link",
  "POST /api/auth/set-password",
  // Forgot password: anyone may ask, the answer never tells whether the address exists, and it is
  // throttled (tests/forgot-password.test.ts).
  "POST /api/auth/forgot-password",
  // Stripe's webhook: its Stripe-Signature is the credential (tests/stripe.test.ts: 400 unsigned or
  // badly signed, 404 while STRIPE_WEBHOOK_SECRET is unset).
  "POST /api/integrations/stripe/webhook",
  // The page such a link opens, before its user can sign in (tests/browser/dashboard.browser.ts).
  "GET /set-password",
  // First run: the setup code is the credential, and all three answer 404 once any user exists
  // (tests/setup.test.ts; the page: tests/browser/setup.browser.ts).
  "GET /setup",
  "GET /api/setup",
  "POST /api/setup",
]);
/** The docs UI's bundle is served under its versioned name. */
const isPublic = (route: string) => PUBLIC.has(route) || /^GET \/docs\/assets\//.test(route);

let t: TestApp;
let base: string;
/** Bearer tokens and API keys by who holds them. */
const as: Record<string, string> = {};
const ids: Record<string, number> = {};
let license: { id: string; key: string };
let notificationId: string;
let deletedApiKey: string;
let customerEmail: string;

beforeAll(async () => {
  // The matrix leaves dozens of the vendor's uploads open: more than MAX_OPEN_UPLOADS allows by default.
  t = await startTestApp({ jobs: "send", env: { WEBHOOK_ALLOW_PRIVATE: "true", MAX_OPEN_UPLOADS: "1000" } });
  base = t.listen();
  const admin = await createUser(t.ctx, { role: "admin" });
  const vendor = await createUser(t.ctx, { role: "vendor" });
  const stranger = await createUser(t.ctx, { role: "vendor" });
  const customer = await createUser(t.ctx);
  customerEmail = customer.email;
  const viewer = await createUser(t.ctx, { role: (await createRole(t.ctx, ["users.view"])).name });
  as.admin = await tokenFor(t.ctx, admin);
  // An admin whose token was narrowed to one ability is not an admin for that request.
  as.narrowedAdmin = await tokenFor(t.ctx, admin, ["users.view"]);
  as.vendor = await tokenFor(t.ctx, vendor);
  as.vendorWithoutPublish = await tokenFor(t.ctx, vendor, ["users.view"]);
  as.stranger = await tokenFor(t.ctx, stranger);
  as.customer = await tokenFor(t.ctx, customer);
  as.viewer = await tokenFor(t.ctx, viewer);
  // The vendor's product is hidden: who may not see it gets the 404 of a product that does not exist.
  const product = await createProduct(t.ctx, vendor, { hidden: true });
  const option = await createOption(t.ctx, product);
  const benefit = await createBenefit(t.ctx, { id: option.id, productId: product.id });
  Object.assign(ids, {
    admin: admin.id,
    vendor: vendor.id,
    stranger: stranger.id,
    customer: customer.id,
    product: product.id,
    option: option.id,
    benefit: benefit.id,
  });
  as.globalKey = (await apiKeyFor(t.ctx)).key;
  as.creatorKey = (await apiKeyFor(t.ctx, vendor.id)).key;
  as.otherCreatorKey = (await apiKeyFor(t.ctx, stranger.id)).key;
  const doomed = await apiKeyFor(t.ctx);
  await deleteApiKey(t.ctx, doomed.id);
  deletedApiKey = doomed.key;
  license = await createLicense(
    t.ctx,
    { id: 0, creatorId: null },
    { ownerId: String(customer.id), creatorId: String(vendor.id), productId: String(product.id), maxIps: 5 },
  );
  const [notification] = await t.ctx.db
    .insert(notifications)
    .values({
      type: "version.published",
      userId: customer.id,
      versionId: await newVersion(),
      data: {
        product_id: product.id,
        product_name: "Hidden",
        version_id: 1,
        version_number: "1.0.0",
        title: "t",
        benefit_name: null,
        download_url: "http://depot.test/x",
      },
    })
    .returning({ id: notifications.id });
  notificationId = notification?.id ?? "";
});
afterAll(() => t.close());

// --- how to call routes ---------------------------------------------------------------------------

/** A new license policy of the shared product, written straight to its table. */
async function policyOfProduct() {
  const [policy] = await t.ctx.db
    .insert(licensePolicies)
    .values({ productId: ids.product as number, name: `Policy ${crypto.randomUUID()}` })
    .returning();
  return policy?.id;
}

function call(method: string, path: () => string | Promise<string>, body?: () => unknown, scheme = "bearer") {
  return async (credential: string | undefined) => {
    const headers: Record<string, string> = {};
    if (credential !== undefined) {
      if (scheme === "bearer") Object.assign(headers, bearer(credential));
      else headers["x-api-key"] = credential;
    }
    if (body) headers["content-type"] = "application/json";
    return fetch(`${base}${await path()}`, {
      method,
      headers,
      body: body ? JSON.stringify(body()) : undefined,
    });
  };
}
/** A tus request: the protocol header, the vendor's bytes where the method takes them. */
function tusCall(method: string, path: () => string | Promise<string>, headers: Record<string, string> = {}) {
  return async (credential: string | undefined) =>
    fetch(`${base}${await path()}`, {
      method,
      headers: {
        ...(credential === undefined ? {} : bearer(credential)),
        "tus-resumable": "1.0.0",
        ...headers,
      },
      body: method === "PATCH" ? "x" : undefined,
    });
}
/** A new 10-byte upload of the vendor's; its path. */
async function vendorUpload(): Promise<string> {
  const response = await tusCall("POST", () => "/api/uploads", { "upload-length": "10" })(as.vendor);
  return response.headers.get("location") ?? "";
}
const apiKeyCall = (method: string, path: () => string | Promise<string>, body?: () => unknown) =>
  call(method, path, body, "apiKey");

let serial = 0;
/** A version of the vendor's product, made directly (its file does not matter to these routes). */
async function newVersion(): Promise<number> {
  const { version } = await insertVersionRow(t.ctx, {
    productId: ids.product ?? 0,
    versionNumber: `0.${++serial}.0`,
    title: "t",
    changelog: "c",
    changelogFormat: "markdown",
    publishedBy: ids.vendor ?? 0,
  });
  return version.id;
}
/** A new machine of the matrix's license (it counts none), activated with its key. */
async function activatedMachine(): Promise<string> {
  const response = await fetch(`${base}/api/v1/licenses/activate`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ key: license.key, fingerprint: `matrix-${++serial}` }),
  });
  return ((await response.json()) as { machine: { id: string } }).machine.id;
}
async function registeredIp(): Promise<string> {
  const ip = `198.51.100.${++serial % 250}`;
  await fetch(`${base}/api/v1/licenses/validate`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": as.globalKey ?? "" },
    body: JSON.stringify({ key: license.key, ip }),
  });
  return ip;
}

// --- who is who -----------------------------------------------------------------------------------

const FORBIDDEN = "This action is unauthorized.";
const who = (name: string, status: number, message?: string): Access => ({
  who: name,
  credential: as[name] ?? "",
  status,
  message,
});
/** Admin routes: a vendor, a customer and an admin token narrowed to other abilities are refused. */
const notAdmins = () => ["vendor", "customer", "narrowedAdmin"].map((name) => who(name, 403, FORBIDDEN));
const adminOnly = (status: number) => () => [who("admin", status)];
/** The hidden product: strangers get the unknown product's 404. */
const hiddenFrom =
  (...names: string[]) =>
  () =>
    names.map((name) => who(name, 404, "Product not found."));
const ownerAndAdmin = (status: number) => () => [who("vendor", status), who("admin", status)];
/** Own-only resources (notifications, webhooks): everyone else, the admin too, gets a 404. */
const ownOnly = (thing: string) => () =>
  ["stranger", "admin"].map((name) => who(name, 404, `${thing} not found.`));
/** Session-only routes: every bearer token, the admin's too, is told to use the dashboard. */
const dashboardOnly = () =>
  ["customer", "admin"].map((name) => who(name, 403, "Personal access tokens are managed in the dashboard."));
const anyToken = (status: number) => () => [who("customer", status), who("admin", status)];
/** The license API: another creator's key does not see the vendor's license. */
const otherCreator = () => [who("otherCreatorKey", 404, "License not found.")];
const creatorAndGlobal = (status: number) => () => [who("creatorKey", status), who("globalKey", status)];

let productCounter = 0;
const uniqueEmail = () => `matrix-${crypto.randomUUID()}@example.com`;
const webhookOf = async (userName: "customer") =>
  (await createWebhook(t.ctx, ids[userName] ?? 0, { url: "http://127.0.0.1:9/hook" })).id;

const routes = (): GuardedRoute[] => [
  // Users and products
  {
    route: "GET /api/users/:user",
    send: call("GET", () => `/api/users/${ids.customer}`),
    denied: () => [who("vendor", 403, FORBIDDEN)],
    allowed: () => [who("customer", 200), who("viewer", 200), who("admin", 200)],
  },
  {
    route: "GET /api/products/:product",
    send: call("GET", () => `/api/products/${ids.product}`),
    denied: hiddenFrom("customer", "stranger"),
    allowed: ownerAndAdmin(200),
  },
  // What the caller may do with the product (tests/product-access.test.ts: each answer per caller).
  {
    route: "GET /api/products/:product/access",
    send: call("GET", () => `/api/products/${ids.product}/access`),
    denied: hiddenFrom("customer", "stranger"),
    allowed: ownerAndAdmin(200),
  },
  // Usage per day (tests/stats.test.ts: a customer's own licenses of a listed product, CSV, 422s).
  {
    route: "GET /api/products/:product/stats",
    send: call("GET", () => `/api/products/${ids.product}/stats`),
    denied: hiddenFrom("customer", "stranger"),
    allowed: ownerAndAdmin(200),
  },
  {
    route: "GET /api/stats",
    send: call("GET", () => "/api/stats"),
    denied: notAdmins,
    allowed: adminOnly(200),
  },
  {
    route: "GET /api/purchases",
    send: call("GET", () => "/api/purchases"),
    denied: () => [],
    allowed: anyToken(200),
  },
  // Admin API
  {
    route: "POST /api/admin/roles",
    send: call(
      "POST",
      () => "/api/admin/roles",
      () => ({ name: `r${++productCounter}`, permissions: [] }),
    ),
    denied: notAdmins,
    allowed: adminOnly(201),
  },
  {
    route: "POST /api/admin/users",
    send: call(
      "POST",
      () => "/api/admin/users",
      () => ({ name: "New", email: uniqueEmail() }),
    ),
    denied: notAdmins,
    allowed: adminOnly(201),
  },
  {
    route: "GET /api/integrations/stripe",
    send: call("GET", () => "/api/integrations/stripe"),
    denied: notAdmins,
    allowed: adminOnly(200),
  },
  {
    route: "PUT /api/integrations/stripe",
    send: call(
      "PUT",
      () => "/api/integrations/stripe",
      () => ({ prices: [] }),
    ),
    denied: notAdmins,
    allowed: adminOnly(200),
  },
  {
    route: "GET /api/integrations/stripe/events",
    send: call("GET", () => "/api/integrations/stripe/events"),
    denied: notAdmins,
    allowed: adminOnly(200),
  },
  {
    route: "POST /api/admin/users/:user/password-link",
    send: call("POST", () => `/api/admin/users/${ids.customer}/password-link`),
    denied: notAdmins,
    allowed: adminOnly(201),
  },
  {
    route: "POST /api/admin/users/:user/tokens",
    send: call(
      "POST",
      () => `/api/admin/users/${ids.customer}/tokens`,
      () => ({ name: "ci" }),
    ),
    denied: notAdmins,
    allowed: adminOnly(201),
  },
  {
    route: "DELETE /api/admin/tokens/:token",
    send: call("DELETE", async () => {
      const token = await tokenFor(t.ctx, { id: ids.customer ?? 0 });
      return `/api/admin/tokens/${token.split("|")[0]}`;
    }),
    denied: notAdmins,
    allowed: adminOnly(204),
  },
  {
    route: "POST /api/changelog/preview",
    send: call(
      "POST",
      () => "/api/changelog/preview",
      () => ({ changelog: "# Fixed" }),
    ),
    denied: () => [],
    allowed: anyToken(200),
  },
  // Self-service tokens: listed with any credential; made and revoked only with the dashboard's
  // session, which the matrix cannot send (tests/own-tokens.test.ts: 201, 204, 419, another user's 404).
  {
    route: "GET /api/tokens",
    send: call("GET", () => "/api/tokens"),
    denied: () => [],
    allowed: anyToken(200),
  },
  {
    route: "POST /api/tokens",
    send: call(
      "POST",
      () => "/api/tokens",
      () => ({ name: "minted", abilities: ["*"] }),
    ),
    denied: dashboardOnly,
    allowed: () => [],
  },
  {
    route: "DELETE /api/tokens/:id",
    send: call(
      "DELETE",
      async () => `/api/tokens/${(await tokenFor(t.ctx, { id: ids.customer ?? 0 })).split("|")[0]}`,
    ),
    denied: dashboardOnly,
    allowed: () => [],
  },
  {
    route: "POST /api/admin/api-keys",
    send: call(
      "POST",
      () => "/api/admin/api-keys",
      () => ({ name: "integration" }),
    ),
    denied: notAdmins,
    allowed: adminOnly(201),
  },
  {
    route: "DELETE /api/admin/api-keys/:key",
    send: call("DELETE", async () => `/api/admin/api-keys/${(await apiKeyFor(t.ctx)).id}`),
    denied: notAdmins,
    allowed: adminOnly(204),
  },
  {
    route: "POST /api/admin/products",
    send: call(
      "POST",
      () => "/api/admin/products",
      () => ({ name: "Matrix", user_id: ids.vendor }),
    ),
    denied: notAdmins,
    allowed: adminOnly(201),
  },
  {
    route: "PATCH /api/admin/products/:product",
    send: call(
      "PATCH",
      () => `/api/admin/products/${ids.product}`,
      () => ({ featured: true }),
    ),
    denied: notAdmins,
    allowed: adminOnly(200),
  },
  {
    route: "DELETE /api/admin/products/:product",
    send: call(
      "DELETE",
      async () => `/api/admin/products/${(await createProduct(t.ctx, { id: ids.vendor ?? 0 })).id}`,
    ),
    denied: notAdmins,
    allowed: adminOnly(204),
  },
  {
    route: "POST /api/admin/products/:product/options",
    send: call(
      "POST",
      () => `/api/admin/products/${ids.product}/options`,
      () => ({ name: "Gold", price: 5 }),
    ),
    denied: notAdmins,
    allowed: adminOnly(201),
  },
  {
    route: "POST /api/admin/products/:product/benefits",
    send: call(
      "POST",
      () => `/api/admin/products/${ids.product}/benefits`,
      () => ({ name: "Support", option_id: ids.option }),
    ),
    denied: notAdmins,
    allowed: adminOnly(201),
  },
  {
    route: "POST /api/admin/purchases",
    send: call(
      "POST",
      () => "/api/admin/purchases",
      () => ({ user_id: ids.customer, product_id: ids.product, unit_price: 10 }),
    ),
    denied: notAdmins,
    allowed: adminOnly(201),
  },
  // Versions
  ...(
    [
      "POST /api/products/:product/versions",
      "POST /api/products/:product/benefits/:benefit/versions",
    ] as const
  ).map(
    (route): GuardedRoute => ({
      route,
      send: call(
        "POST",
        () =>
          route.includes("benefits")
            ? `/api/products/${ids.product}/benefits/${ids.benefit}/versions`
            : `/api/products/${ids.product}/versions`,
        () => ({
          version_name: `9.${++serial}.0`,
          title: "t",
          changelog: "c",
          file: { filename: "a.jar", content: Buffer.from(`bytes ${serial}`).toString("base64") },
        }),
      ),
      denied: () => [
        who("stranger", 403, FORBIDDEN),
        who("customer", 403, FORBIDDEN),
        who("vendorWithoutPublish", 403, FORBIDDEN),
      ],
      allowed: ownerAndAdmin(201),
    }),
  ),
  // Reading versions: the customer holds a license of the hidden product, so may list what to download.
  {
    route: "GET /api/products/:product/versions",
    send: call("GET", () => `/api/products/${ids.product}/versions`),
    denied: hiddenFrom("stranger"),
    allowed: () => [who("customer", 200), ...ownerAndAdmin(200)()],
  },
  {
    route: "GET /api/products/:product/versions/latest",
    send: call("GET", () => `/api/products/${ids.product}/versions/latest`),
    denied: hiddenFrom("stranger"),
    allowed: () => [who("customer", 200), ...ownerAndAdmin(200)()],
  },
  {
    route: "GET /api/products/:product/versions/:version",
    send: call("GET", async () => `/api/products/${ids.product}/versions/${await newVersion()}`),
    denied: hiddenFrom("stranger"),
    allowed: () => [who("customer", 200), ...ownerAndAdmin(200)()],
  },
  {
    route: "DELETE /api/products/:product/versions/:version",
    send: call("DELETE", async () => `/api/products/${ids.product}/versions/${await newVersion()}`),
    denied: () => [...hiddenFrom("customer", "stranger")(), who("vendorWithoutPublish", 403, FORBIDDEN)],
    allowed: ownerAndAdmin(204),
  },
  {
    route: "PATCH /api/products/:product/versions/:version",
    send: call(
      "PATCH",
      async () => `/api/products/${ids.product}/versions/${await newVersion()}`,
      () => ({ critical: true, rollout_percentage: 50 }),
    ),
    denied: () => [...hiddenFrom("customer", "stranger")(), who("vendorWithoutPublish", 403, FORBIDDEN)],
    allowed: ownerAndAdmin(200),
  },
  {
    route: "POST /api/products/:product/versions/:version/artifacts",
    send: call(
      "POST",
      async () => `/api/products/${ids.product}/versions/${await newVersion()}/artifacts`,
      () => ({
        platform: "linux",
        file: {
          filename: `a-${++serial}.AppImage`,
          content: Buffer.from(`bytes ${serial}`).toString("base64"),
        },
      }),
    ),
    denied: () => [
      who("stranger", 403, FORBIDDEN),
      who("customer", 403, FORBIDDEN),
      who("vendorWithoutPublish", 403, FORBIDDEN),
    ],
    allowed: ownerAndAdmin(201),
  },
  {
    route: "PATCH /api/products/:product/versions/:version/artifacts/:artifact",
    send: call(
      "PATCH",
      async () => {
        const { version, artifact } = await insertVersionRow(t.ctx, {
          productId: ids.product ?? 0,
          versionNumber: `0.${++serial}.0`,
          title: "t",
          changelog: "c",
          changelogFormat: "markdown",
          publishedBy: ids.vendor ?? 0,
        });
        return `/api/products/${ids.product}/versions/${version.id}/artifacts/${artifact.id}`;
      },
      () => ({ updaters_only: true }),
    ),
    denied: () => [...hiddenFrom("customer", "stranger")(), who("vendorWithoutPublish", 403, FORBIDDEN)],
    allowed: ownerAndAdmin(200),
  },
  {
    route: "DELETE /api/products/:product/versions/:version/artifacts/:artifact",
    send: call("DELETE", async () => {
      // A version with a second file (its only one may not be deleted).
      const versionId = await newVersion();
      const [second] = await t.ctx.db
        .insert(artifacts)
        .values({
          versionId,
          platform: "linux",
          arch: "x86_64",
          fileName: "b.bin",
          fileSize: 1,
          sha256: "1".repeat(64),
          contentType: "application/octet-stream",
          storageKey: `products/${ids.product}/${crypto.randomUUID()}`,
        })
        .returning({ id: artifacts.id });
      return `/api/products/${ids.product}/versions/${versionId}/artifacts/${second?.id}`;
    }),
    denied: () => [...hiddenFrom("customer", "stranger")(), who("vendorWithoutPublish", 403, FORBIDDEN)],
    allowed: ownerAndAdmin(204),
  },
  // Resumable uploads: publishers only, each their own
  {
    route: "POST /api/uploads",
    send: tusCall("POST", () => "/api/uploads", { "upload-length": "10" }),
    denied: () => ["customer", "vendorWithoutPublish"].map((name) => who(name, 403, FORBIDDEN)),
    allowed: () => [who("vendor", 201), who("admin", 201)],
  },
  {
    route: "PATCH /api/uploads/:id",
    send: tusCall("PATCH", vendorUpload, {
      "upload-offset": "0",
      "content-type": "application/offset+octet-stream",
    }),
    denied: () => [...ownOnly("Upload")(), who("customer", 403, FORBIDDEN)],
    allowed: () => [who("vendor", 204)],
  },
  {
    route: "DELETE /api/uploads/:id",
    send: tusCall("DELETE", vendorUpload),
    denied: () => [...ownOnly("Upload")(), who("customer", 403, FORBIDDEN)],
    allowed: () => [who("vendor", 204)],
  },
  {
    route: "POST /api/uploads/:id",
    send: tusCall("POST", vendorUpload, { "x-http-method-override": "DELETE" }),
    denied: () => [...ownOnly("Upload")(), who("customer", 403, FORBIDDEN)],
    allowed: () => [who("vendor", 204)],
  },
  // Notifications and webhooks: a user's own only
  {
    route: "GET /api/notifications",
    send: call("GET", () => "/api/notifications"),
    denied: () => [],
    allowed: anyToken(200),
  },
  {
    route: "POST /api/notifications/:id/read",
    send: call("POST", () => `/api/notifications/${notificationId}/read`),
    denied: ownOnly("Notification"),
    allowed: () => [who("customer", 200)],
  },
  {
    route: "POST /api/notifications/read-all",
    send: call("POST", () => "/api/notifications/read-all"),
    denied: () => [],
    allowed: anyToken(200),
  },
  {
    route: "POST /api/webhooks",
    send: call(
      "POST",
      () => "/api/webhooks",
      () => ({ url: "http://127.0.0.1:9/hook" }),
    ),
    denied: () => [],
    allowed: () => [who("vendor", 201), who("admin", 201)],
  },
  {
    route: "GET /api/webhooks",
    send: call("GET", () => "/api/webhooks"),
    denied: () => [],
    allowed: anyToken(200),
  },
  {
    route: "DELETE /api/webhooks/:id",
    send: call("DELETE", async () => `/api/webhooks/${await webhookOf("customer")}`),
    denied: ownOnly("Webhook"),
    allowed: () => [who("customer", 204)],
  },
  {
    route: "GET /api/webhooks/:id/deliveries",
    send: call("GET", async () => `/api/webhooks/${await webhookOf("customer")}/deliveries`),
    denied: ownOnly("Webhook"),
    allowed: () => [who("customer", 200)],
  },
  // The license owner's own IP reset (3 a day: the matrix calls it once)
  {
    route: "DELETE /api/licenses/:id/ips",
    send: call("DELETE", () => `/api/licenses/${license.id}/ips`),
    denied: () => ["stranger", "admin"].map((name) => who(name, 404, "License not found.")),
    allowed: () => [who("customer", 204)],
  },
  // The license owner's machines (tests/machines.test.ts): only the owner, the admin gets a 404 too
  {
    route: "GET /api/licenses/:id/machines",
    send: call("GET", () => `/api/licenses/${license.id}/machines`),
    denied: () => ["stranger", "admin"].map((name) => who(name, 404, "License not found.")),
    allowed: () => [who("customer", 200)],
  },
  {
    route: "DELETE /api/licenses/:id/machines/:machine",
    send: call("DELETE", async () => `/api/licenses/${license.id}/machines/${await activatedMachine()}`),
    denied: () => ["stranger", "admin"].map((name) => who(name, 404, "License not found.")),
    allowed: () => [who("customer", 204)],
  },
  {
    route: "POST /api/licenses/:id/machines/offline",
    send: call(
      "POST",
      () => `/api/licenses/${license.id}/machines/offline`,
      () => ({
        request: Buffer.from(
          JSON.stringify({ v: 1, key: license.key, fingerprint: `offline-${++serial}` }),
        ).toString("base64"),
      }),
    ),
    denied: () => ["stranger", "admin"].map((name) => who(name, 404, "License not found.")),
    allowed: () => [who("customer", 201)],
  },
  // The license API (x-api-key): the license's creator's key, and a key for all creators
  {
    route: "POST /api/v1/licenses",
    scheme: "apiKey",
    send: apiKeyCall(
      "POST",
      () => "/api/v1/licenses",
      () => ({
        ownerId: String(ids.customer),
        creatorId: String(ids.vendor),
        productId: String(ids.product),
      }),
    ),
    denied: () => [who("otherCreatorKey", 403, "This API key may only create licenses for its own creator.")],
    allowed: creatorAndGlobal(201),
  },
  {
    route: "GET /api/v1/licenses",
    scheme: "apiKey",
    send: apiKeyCall("GET", () => "/api/v1/licenses"),
    denied: () => [],
    allowed: () => [who("creatorKey", 200), who("globalKey", 200), who("otherCreatorKey", 200)],
  },
  {
    route: "GET /api/v1/licenses/:id",
    scheme: "apiKey",
    send: apiKeyCall("GET", () => `/api/v1/licenses/${license.id}`),
    denied: otherCreator,
    allowed: creatorAndGlobal(200),
  },
  {
    route: "PATCH /api/v1/licenses/:id",
    scheme: "apiKey",
    send: apiKeyCall(
      "PATCH",
      () => `/api/v1/licenses/${license.id}`,
      () => ({ maxIps: 5 }),
    ),
    denied: otherCreator,
    allowed: creatorAndGlobal(200),
  },
  {
    route: "DELETE /api/v1/licenses/:id",
    scheme: "apiKey",
    send: apiKeyCall("DELETE", async () => {
      const made = await createLicense(
        t.ctx,
        { id: 0, creatorId: null },
        { ownerId: String(ids.customer), creatorId: String(ids.vendor), productId: String(ids.product) },
      );
      return `/api/v1/licenses/${made.id}`;
    }),
    denied: otherCreator,
    allowed: creatorAndGlobal(204),
  },
  {
    route: "GET /api/v1/licenses/:id/file",
    scheme: "apiKey",
    send: apiKeyCall("GET", () => `/api/v1/licenses/${license.id}/file`),
    denied: otherCreator,
    allowed: creatorAndGlobal(200),
    contentType: "application/x-pem-file",
  },
  {
    route: "GET /api/v1/licenses/:id/machines",
    scheme: "apiKey",
    send: apiKeyCall("GET", () => `/api/v1/licenses/${license.id}/machines`),
    denied: otherCreator,
    allowed: creatorAndGlobal(200),
  },
  {
    route: "GET /api/v1/licenses/:id/ips",
    scheme: "apiKey",
    send: apiKeyCall("GET", () => `/api/v1/licenses/${license.id}/ips`),
    denied: otherCreator,
    allowed: creatorAndGlobal(200),
  },
  {
    route: "DELETE /api/v1/licenses/:id/ips",
    scheme: "apiKey",
    send: apiKeyCall("DELETE", () => `/api/v1/licenses/${license.id}/ips`),
    denied: otherCreator,
    allowed: creatorAndGlobal(204),
  },
  {
    route: "DELETE /api/v1/licenses/:id/ips/:ip",
    scheme: "apiKey",
    send: apiKeyCall("DELETE", async () => `/api/v1/licenses/${license.id}/ips/${await registeredIp()}`),
    denied: otherCreator,
    allowed: creatorAndGlobal(204),
  },
  // A product's licenses for the dashboard (tests/vendor-licenses.test.ts: 403 for a listed product,
  // products.manage, the session's 419): the owner and the admin; the hidden product is 404 to others.
  {
    route: "GET /api/products/:product/licenses",
    send: call("GET", () => `/api/products/${ids.product}/licenses`),
    denied: hiddenFrom("customer", "stranger"),
    allowed: ownerAndAdmin(200),
  },
  {
    route: "POST /api/products/:product/licenses",
    send: call(
      "POST",
      () => `/api/products/${ids.product}/licenses`,
      () => ({ owner_email: customerEmail }),
    ),
    denied: hiddenFrom("customer", "stranger"),
    allowed: ownerAndAdmin(201),
  },
  {
    route: "PATCH /api/products/:product/licenses/:license",
    // A license of its own: the shared one's machine settings would change what validation answers.
    send: call(
      "PATCH",
      async () => {
        const made = await createLicense(
          t.ctx,
          { id: 0, creatorId: null },
          { ownerId: String(ids.customer), creatorId: String(ids.vendor), productId: String(ids.product) },
        );
        return `/api/products/${ids.product}/licenses/${made.id}`;
      },
      () => ({ max_machines: 3 }),
    ),
    denied: hiddenFrom("customer", "stranger"),
    allowed: ownerAndAdmin(200),
  },
  {
    route: "DELETE /api/products/:product/licenses/:license",
    send: call("DELETE", async () => {
      const made = await createLicense(
        t.ctx,
        { id: 0, creatorId: null },
        { ownerId: String(ids.customer), creatorId: String(ids.vendor), productId: String(ids.product) },
      );
      return `/api/products/${ids.product}/licenses/${made.id}`;
    }),
    denied: hiddenFrom("customer", "stranger"),
    allowed: ownerAndAdmin(204),
  },
  {
    route: "GET /api/products/:product/license-policies",
    send: call("GET", () => `/api/products/${ids.product}/license-policies`),
    denied: hiddenFrom("customer", "stranger"),
    allowed: ownerAndAdmin(200),
  },
  {
    route: "POST /api/products/:product/license-policies",
    send: call(
      "POST",
      () => `/api/products/${ids.product}/license-policies`,
      () => ({ name: `Policy ${crypto.randomUUID()}` }),
    ),
    denied: hiddenFrom("customer", "stranger"),
    allowed: ownerAndAdmin(201),
  },
  {
    route: "GET /api/products/:product/license-policies/:policy",
    send: call("GET", async () => `/api/products/${ids.product}/license-policies/${await policyOfProduct()}`),
    denied: hiddenFrom("customer", "stranger"),
    allowed: ownerAndAdmin(200),
  },
  {
    route: "PATCH /api/products/:product/license-policies/:policy",
    send: call(
      "PATCH",
      async () => `/api/products/${ids.product}/license-policies/${await policyOfProduct()}`,
      () => ({ max_ips: 2 }),
    ),
    denied: hiddenFrom("customer", "stranger"),
    allowed: ownerAndAdmin(200),
  },
  {
    route: "DELETE /api/products/:product/license-policies/:policy",
    send: call(
      "DELETE",
      async () => `/api/products/${ids.product}/license-policies/${await policyOfProduct()}`,
    ),
    denied: hiddenFrom("customer", "stranger"),
    allowed: ownerAndAdmin(204),
  },
  {
    route: "GET /api/products/:product/license-settings",
    send: call("GET", () => `/api/products/${ids.product}/license-settings`),
    denied: hiddenFrom("customer", "stranger"),
    allowed: ownerAndAdmin(200),
  },
  {
    route: "PATCH /api/products/:product/license-settings",
    // {} changes nothing: the shared product's default would change the files other rows get.
    send: call(
      "PATCH",
      () => `/api/products/${ids.product}/license-settings`,
      () => ({}),
    ),
    denied: hiddenFrom("customer", "stranger"),
    allowed: ownerAndAdmin(200),
  },
  {
    route: "GET /api/products/:product/licenses/:license/ips",
    send: call("GET", () => `/api/products/${ids.product}/licenses/${license.id}/ips`),
    denied: hiddenFrom("customer", "stranger"),
    allowed: ownerAndAdmin(200),
  },
  {
    route: "DELETE /api/products/:product/licenses/:license/ips",
    send: call("DELETE", () => `/api/products/${ids.product}/licenses/${license.id}/ips`),
    denied: hiddenFrom("customer", "stranger"),
    allowed: ownerAndAdmin(204),
  },
  {
    route: "DELETE /api/products/:product/licenses/:license/ips/:ip",
    send: call(
      "DELETE",
      async () => `/api/products/${ids.product}/licenses/${license.id}/ips/${await registeredIp()}`,
    ),
    denied: hiddenFrom("customer", "stranger"),
    allowed: ownerAndAdmin(204),
  },
  // A license's machines for its vendor (tests/product-machines.test.ts).
  {
    route: "GET /api/products/:product/licenses/:license/machines",
    send: call("GET", () => `/api/products/${ids.product}/licenses/${license.id}/machines`),
    denied: hiddenFrom("customer", "stranger"),
    allowed: ownerAndAdmin(200),
  },
  {
    route: "DELETE /api/products/:product/licenses/:license/machines/:machine",
    send: call(
      "DELETE",
      async () => `/api/products/${ids.product}/licenses/${license.id}/machines/${await activatedMachine()}`,
    ),
    denied: hiddenFrom("customer", "stranger"),
    allowed: ownerAndAdmin(204),
  },
  {
    route: "POST /api/products/:product/licenses/:license/machines/offline",
    send: call(
      "POST",
      () => `/api/products/${ids.product}/licenses/${license.id}/machines/offline`,
      () => ({
        request: Buffer.from(
          JSON.stringify({ v: 1, key: license.key, fingerprint: `air-${++serial}` }),
        ).toString("base64"),
      }),
    ),
    denied: hiddenFrom("customer", "stranger"),
    allowed: ownerAndAdmin(201),
  },
  // Send a delivery again: the endpoint's owner only (tests/webhook-resend.test.ts).
  {
    route: "POST /api/webhooks/:id/deliveries/:delivery/resend",
    send: call("POST", async () => {
      const webhookId = await webhookOf("customer");
      const deliveryId = crypto.randomUUID();
      await t.ctx.db.insert(webhookDeliveries).values({
        id: deliveryId,
        webhookId,
        event: "version.published",
        subjectId: ++serial,
        payload: { type: "version.published" },
        status: "failed",
      });
      return `/api/webhooks/${webhookId}/deliveries/${deliveryId}/resend`;
    }),
    denied: ownOnly("Webhook"),
    allowed: () => [who("customer", 202)],
  },
  // The admin pages' lists and changes (tests/admin-lists.test.ts)
  {
    route: "GET /api/admin/users",
    send: call("GET", () => "/api/admin/users"),
    denied: () => ["vendor", "customer"].map((name) => who(name, 403, FORBIDDEN)),
    // users.view reads every account, so it may list them; the admin token narrowed to it too.
    allowed: () => [who("viewer", 200), who("narrowedAdmin", 200), who("admin", 200)],
  },
  {
    route: "PATCH /api/admin/users/:user",
    send: call(
      "PATCH",
      () => `/api/admin/users/${ids.customer}`,
      () => ({ name: "Renamed" }),
    ),
    denied: () => [...notAdmins(), who("viewer", 403, FORBIDDEN)],
    allowed: adminOnly(200),
  },
  {
    route: "GET /api/admin/roles",
    send: call("GET", () => "/api/admin/roles"),
    denied: notAdmins,
    allowed: adminOnly(200),
  },
  {
    route: "PATCH /api/admin/roles/:role",
    send: call(
      "PATCH",
      async () => `/api/admin/roles/${(await createRole(t.ctx, [])).id}`,
      () => ({ permissions: ["users.view"] }),
    ),
    denied: notAdmins,
    allowed: adminOnly(200),
  },
  {
    route: "DELETE /api/admin/roles/:role",
    send: call("DELETE", async () => `/api/admin/roles/${(await createRole(t.ctx, [])).id}`),
    denied: notAdmins,
    allowed: adminOnly(204),
  },
  {
    route: "GET /api/admin/api-keys",
    send: call("GET", () => "/api/admin/api-keys"),
    denied: notAdmins,
    allowed: adminOnly(200),
  },
  {
    route: "GET /api/products/:product/options",
    send: call("GET", () => `/api/products/${ids.product}/options`),
    denied: hiddenFrom("customer", "stranger"),
    allowed: ownerAndAdmin(200),
  },
  // The products list: every caller gets their own (tests/products-list.test.ts: who sees which).
  {
    route: "GET /api/products",
    send: call("GET", () => "/api/products"),
    denied: () => [],
    allowed: () => [who("customer", 200), who("vendor", 200), who("admin", 200)],
  },
  // A customer's own licenses and downloads: any credential of theirs, only their own
  // (tests/my-licenses.test.ts, tests/downloads-api.test.ts).
  {
    route: "GET /api/licenses",
    send: call("GET", () => "/api/licenses"),
    denied: () => [],
    allowed: anyToken(200),
  },
  {
    route: "GET /api/downloads",
    send: call("GET", () => "/api/downloads"),
    denied: () => [],
    allowed: anyToken(200),
  },
  // Profile: the dashboard's session only, which the matrix cannot send (tests/profile.test.ts:
  // 200, 204, 419, 422); every bearer token, the admin's too, is told so.
  {
    route: "PATCH /api/profile",
    send: call(
      "PATCH",
      () => "/api/profile",
      () => ({ name: "Renamed" }),
    ),
    denied: () =>
      ["customer", "admin"].map((name) => who(name, 403, "Your profile is changed in the dashboard.")),
    allowed: () => [],
  },
  {
    route: "POST /api/profile/password",
    send: call(
      "POST",
      () => "/api/profile/password",
      () => ({ current_password: "x", password: "a new password", password_confirmation: "a new password" }),
    ),
    denied: () =>
      ["customer", "admin"].map((name) => who(name, 403, "Your profile is changed in the dashboard.")),
    allowed: () => [],
  },
];

describe("the route inventory", () => {
  test("every route the app serves is in the auth matrix or on the public list", () => {
    const covered = new Set(routes().map((r) => r.route));
    const served = t.app.routes.map((r) => `${r.method} ${r.path}`);
    expect(served.filter((route) => !covered.has(route) && !isPublic(route))).toEqual([]);
    // And the matrix names no route the app does not serve (a renamed path would hide here).
    expect([...covered].filter((route) => !served.includes(route))).toEqual([]);
  });
});

describe("the auth matrix", () => {
  authMatrix(
    routes,
    routes().map((r) => r.route),
    () => deletedApiKey,
  );
});
