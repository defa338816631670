import { afterAll, beforeAll, describe } from "bun:test";
import { bearer, json, startTestApp, type TestApp } from "./helpers/app.ts";
import { authMatrix, type GuardedRoute } from "./helpers/auth-matrix.ts";
import { createOption, createProduct, createRole, createUser, tokenFor } from "./helpers/factories.ts";

let t: TestApp;
const tokens: Record<string, string> = {};
const ids: Record<string, number> = {};

beforeAll(async () => {
  t = await startTestApp();
  const admin = await createUser(t.ctx, { role: "admin" });
  const vendor = await createUser(t.ctx, { role: "vendor" });
  const customer = await createUser(t.ctx);
  const viewer = await createUser(t.ctx, { role: (await createRole(t.ctx, ["users.view"])).name });
  tokens.admin = await tokenFor(t.ctx, admin);
  // An admin whose token was narrowed to one ability is not an admin for that request.
  tokens.narrowedAdmin = await tokenFor(t.ctx, admin, ["users.view"]);
  tokens.vendor = await tokenFor(t.ctx, vendor);
  tokens.customer = await tokenFor(t.ctx, customer);
  tokens.viewer = await tokenFor(t.ctx, viewer);
  const hidden = await createProduct(t.ctx, vendor, { hidden: true });
  const option = await createOption(t.ctx, hidden);
  Object.assign(ids, {
    admin: admin.id,
    vendor: vendor.id,
    customer: customer.id,
    hidden: hidden.id,
    option: option.id,
  });
});
afterAll(() => t.close());

const get = (path: string) => (token: string | undefined) =>
  t.request(path, { headers: token ? bearer(token) : {} });
const send = (method: string, path: () => string, body: () => unknown) => (token: string | undefined) =>
  t.request(path(), json(body(), { method, token }));

const FORBIDDEN = "This action is unauthorized.";
/** Admin routes refuse a vendor, a customer and an admin token narrowed to other abilities. */
const notAdmins = () =>
  ["vendor", "customer", "narrowedAdmin"].map((who) => ({
    who,
    token: tokens[who] ?? "",
    status: 403,
    message: FORBIDDEN,
  }));
const asAdmin = (status: number) => () => ({ who: "admin", token: tokens.admin ?? "", status });

let productCounter = 0;
const routes = (): GuardedRoute[] => [
  {
    route: "GET /api/users/{user}",
    send: (token) => get(`/api/users/${ids.customer}`)(token),
    denied: () => [{ who: "vendor", token: tokens.vendor ?? "", status: 403, message: FORBIDDEN }],
    allowed: () => ({ who: "users.view", token: tokens.viewer ?? "", status: 200 }),
  },
  {
    route: "GET /api/products/{product}",
    send: (token) => get(`/api/products/${ids.hidden}`)(token),
    // A hidden product is hidden: a stranger learns nothing, not even that it exists.
    denied: () => [
      { who: "customer", token: tokens.customer ?? "", status: 404, message: "Product not found." },
    ],
    allowed: () => ({ who: "owner", token: tokens.vendor ?? "", status: 200 }),
  },
  {
    route: "GET /api/purchases",
    send: (token) => get("/api/purchases")(token),
    denied: () => [],
    allowed: () => ({ who: "customer", token: tokens.customer ?? "", status: 200 }),
  },
  {
    route: "POST /api/admin/roles",
    send: send(
      "POST",
      () => "/api/admin/roles",
      () => ({ name: `r${++productCounter}`, permissions: [] }),
    ),
    denied: notAdmins,
    allowed: asAdmin(201),
  },
  {
    route: "POST /api/admin/products",
    send: send(
      "POST",
      () => "/api/admin/products",
      () => ({ name: "Matrix", user_id: ids.vendor }),
    ),
    denied: notAdmins,
    allowed: asAdmin(201),
  },
  {
    route: "PATCH /api/admin/products/{product}",
    send: send(
      "PATCH",
      () => `/api/admin/products/${ids.hidden}`,
      () => ({ featured: true }),
    ),
    denied: notAdmins,
    allowed: asAdmin(200),
  },
  {
    route: "DELETE /api/admin/products/{product}",
    send: async (token) => {
      const product = await createProduct(t.ctx, { id: ids.vendor ?? 0 });
      return t.request(`/api/admin/products/${product.id}`, {
        method: "DELETE",
        headers: token ? bearer(token) : {},
      });
    },
    denied: notAdmins,
    allowed: asAdmin(204),
  },
  {
    route: "POST /api/admin/products/{product}/options",
    send: send(
      "POST",
      () => `/api/admin/products/${ids.hidden}/options`,
      () => ({ name: "Gold", price: 5 }),
    ),
    denied: notAdmins,
    allowed: asAdmin(201),
  },
  {
    route: "POST /api/admin/products/{product}/benefits",
    send: send(
      "POST",
      () => `/api/admin/products/${ids.hidden}/benefits`,
      () => ({ name: "Support", option_id: ids.option }),
    ),
    denied: notAdmins,
    allowed: asAdmin(201),
  },
  {
    route: "POST /api/admin/purchases",
    send: send(
      "POST",
      () => "/api/admin/purchases",
      () => ({
        user_id: ids.customer,
        product_id: ids.hidden,
        unit_price: 10,
      }),
    ),
    denied: notAdmins,
    allowed: asAdmin(201),
  },
  {
    route: "POST /api/admin/users",
    send: send(
      "POST",
      () => "/api/admin/users",
      () => ({
        name: "New",
        email: `new-${crypto.randomUUID()}@example.com`,
      }),
    ),
    denied: notAdmins,
    allowed: asAdmin(201),
  },
  {
    route: "POST /api/admin/users/{user}/tokens",
    send: send(
      "POST",
      () => `/api/admin/users/${ids.customer}/tokens`,
      () => ({ name: "ci" }),
    ),
    denied: notAdmins,
    allowed: asAdmin(201),
  },
  {
    route: "POST /api/admin/api-keys",
    send: send(
      "POST",
      () => "/api/admin/api-keys",
      () => ({ name: "integration" }),
    ),
    denied: notAdmins,
    allowed: asAdmin(201),
  },
];

describe("auth matrix: every catalogue and admin route", () => {
  authMatrix(
    routes,
    routes().map((r) => r.route),
  );
});
