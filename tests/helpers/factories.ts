import type { AppContext } from "../../src/context.ts";
import { artifacts, type NewArtifact, type NewVersion, versions } from "../../src/db/schema/index.ts";
import { createApiKey } from "../../src/features/api-keys/service.ts";
import type { LicenseJson } from "../../src/features/licenses/json.ts";
import {
  createBenefit as createBenefitService,
  createOption as createOptionService,
} from "../../src/features/options/service.ts";
import type { CreateProductInput } from "../../src/features/products/schemas.ts";
import { createProduct as createProductService } from "../../src/features/products/service.ts";
import type { CreatePurchaseInput } from "../../src/features/purchases/schemas.ts";
import { createPurchase as createPurchaseService } from "../../src/features/purchases/service.ts";
import { createRole as createRoleService } from "../../src/features/roles/service.ts";
import { createToken } from "../../src/features/tokens/service.ts";
import { createUser as createUserService } from "../../src/features/users/service.ts";

let sequence = 0;

export async function createUser(
  ctx: Pick<AppContext, "db">,
  overrides: { role?: string; name?: string; email?: string } = {},
) {
  sequence++;
  const { user } = await createUserService(ctx, {
    name: overrides.name ?? `User ${sequence}`,
    email: overrides.email ?? `user${sequence}-${crypto.randomUUID().slice(0, 8)}@example.com`,
    role: overrides.role ?? "customer",
  });
  return user;
}

/** A plaintext bearer token for `user`, optionally limited to `abilities`. */
export async function tokenFor(ctx: Pick<AppContext, "db">, user: { id: number }, abilities?: string[]) {
  const token = await createToken(ctx, user.id, { name: "test", abilities: abilities as never });
  return token.token;
}

export async function apiKeyFor(ctx: Pick<AppContext, "db">, creatorId: number | null = null) {
  return createApiKey(ctx, { name: "test", creatorId });
}

export async function createRole(ctx: Pick<AppContext, "db">, permissions: string[]) {
  sequence++;
  return createRoleService(ctx, {
    name: `role-${sequence}-${crypto.randomUUID().slice(0, 6)}`,
    permissions: permissions as never,
  });
}

/** A product owned by `owner`; `overrides` uses the admin API's request fields. */
export async function createProduct(
  ctx: Pick<AppContext, "db">,
  owner: { id: number },
  overrides: Partial<CreateProductInput> = {},
) {
  sequence++;
  const { product } = await createProductService(ctx, {
    name: `Product ${sequence}`,
    user_id: owner.id,
    ...overrides,
  });
  return product;
}

export async function createOption(ctx: Pick<AppContext, "db">, product: { id: number }, price = 19.99) {
  return createOptionService(ctx, product.id, { name: `Option ${++sequence}`, price });
}

export async function createBenefit(ctx: Pick<AppContext, "db">, option: { id: number; productId: number }) {
  return createBenefitService(ctx, option.productId, { name: `Benefit ${++sequence}`, option_id: option.id });
}

/** `buyer` buys `product` (optionally an option of it) in USD unless `overrides` says otherwise. */
export async function createPurchase(
  ctx: Pick<AppContext, "db">,
  buyer: { id: number },
  product: { id: number },
  overrides: Partial<CreatePurchaseInput> = {},
) {
  const { purchase } = await createPurchaseService(ctx, {
    user_id: buyer.id,
    product_id: product.id,
    unit_price: 19.99,
    ...overrides,
  });
  return purchase;
}

/** What license tests need: an owner, two creators with a product each, a global key and one scoped key each. */
export async function licenseWorld(ctx: Pick<AppContext, "db" | "config">) {
  const owner = await createUser(ctx);
  const creatorA = await createUser(ctx, { role: "vendor" });
  const creatorB = await createUser(ctx, { role: "vendor" });
  return {
    owner,
    creatorA,
    creatorB,
    productA: await createProduct(ctx, creatorA),
    productB: await createProduct(ctx, creatorB),
    globalKey: (await apiKeyFor(ctx, null)).key,
    keyA: (await apiKeyFor(ctx, creatorA.id)).key,
    keyB: (await apiKeyFor(ctx, creatorB.id)).key,
  };
}
export type LicenseWorld = Awaited<ReturnType<typeof licenseWorld>>;

/** A license for creator A's product, created through the license API with `fields` on top. */
export async function licenseIn(
  app: { request(path: string, init?: RequestInit): Promise<Response> },
  w: LicenseWorld,
  fields: Record<string, unknown> = {},
): Promise<LicenseJson> {
  const response = await app.request("/api/v1/licenses", {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": w.globalKey },
    body: JSON.stringify({
      ownerId: String(w.owner.id),
      creatorId: String(w.creatorA.id),
      productId: String(w.productA.id),
      ...fields,
    }),
  });
  if (response.status !== 201)
    throw new Error(`creating a license answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as LicenseJson;
}

/**
 * A version row and its one artifact written straight to the tables (its file is not stored), for tests
 * whose routes do not read the file, or that model rows an older depot wrote.
 */
export async function insertVersionRow(
  ctx: Pick<AppContext, "db">,
  values: NewVersion,
  file: Partial<NewArtifact> = {},
) {
  const [version] = await ctx.db.insert(versions).values(values).returning();
  if (!version) throw new Error("version insert returned nothing");
  const [artifact] = await ctx.db
    .insert(artifacts)
    .values({
      versionId: version.id,
      platform: "any",
      arch: "any",
      fileName: "a.bin",
      fileSize: 1,
      sha256: "0".repeat(64),
      sha512: null,
      contentType: "application/octet-stream",
      storageKey: `products/${version.productId}/${crypto.randomUUID()}`,
      ...file,
    })
    .returning();
  if (!artifact) throw new Error("artifact insert returned nothing");
  return { version, artifact };
}
