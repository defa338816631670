import { mkdirSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { AppContext } from "../../context.ts";
import { emailMatches } from "../../db/email-key.ts";
import { users } from "../../db/schema/index.ts";
import { withTransaction } from "../../db/transaction.ts";
import { AppError } from "../../errors.ts";
import { PRIVATE_DIRECTORY, PRIVATE_FILE } from "../../file-modes.ts";
import { createApiKey } from "../api-keys/service.ts";
import { hashPassword } from "../auth/passwords.ts";
import { createLicense } from "../licenses/service.ts";
import { createBenefit, createOption } from "../options/service.ts";
import type { CreateProductInput } from "../products/schemas.ts";
import { createProduct } from "../products/service.ts";
import type { CreatePurchaseInput } from "../purchases/schemas.ts";
import { createPurchase, formatPrice } from "../purchases/service.ts";
import type { CreateRoleInput } from "../roles/schemas.ts";
import { createRole } from "../roles/service.ts";
import { createToken } from "../tokens/service.ts";
import { createUser } from "../users/service.ts";
import { seedUsage } from "./usage.ts";

// ---- The demo catalogue. Everything below is made through the same services the API uses. ----

const ADMIN = { name: "Ada Admin", email: "admin@demo.depot.test" };
const VENDORS = [
  { key: "vera", name: "Vera Vendor", email: "vera@demo.depot.test" },
  { key: "victor", name: "Victor Vendor", email: "victor@demo.depot.test" },
] as const;
const CUSTOMERS = [
  { key: "carla", name: "Carla Customer", email: "carla@demo.depot.test" },
  { key: "chen", name: "Chen Customer", email: "chen@demo.depot.test" },
  { key: "dana", name: "Dana Customer", email: "dana@demo.depot.test" },
  { key: "eli", name: "Eli Customer", email: "eli@demo.depot.test" }, // buys nothing: an empty list
] as const;
/** A role beside the seeded three: reads users and every purchase, changes nothing. */
const SUPPORT_ROLE: CreateRoleInput = { name: "support", permissions: ["users.view", "purchases.view"] };
const SUPPORT = { name: "Sam Support", email: "support@demo.depot.test" };

type UserKey = "admin" | "support" | (typeof VENDORS)[number]["key"] | (typeof CUSTOMERS)[number]["key"];

interface DemoProduct {
  key: string;
  seller: UserKey;
  vendor?: UserKey;
  fields: Omit<CreateProductInput, "user_id" | "vendor_id">;
  /** Options (tiers) with the benefits each includes. */
  options: { name: string; price: number; benefits: string[] }[];
}

const PRODUCTS: DemoProduct[] = [
  {
    key: "ultra-perms",
    seller: "vera",
    fields: {
      name: "Ultra Perms",
      description: "Permissions for Minecraft servers, with a web editor.",
      featured: true,
      tags: ["permissions", "spigot", "paper"],
      cover_image: "products/ultra-perms/cover.png",
      gallery_images: ["products/ultra-perms/editor.png", "products/ultra-perms/groups.png"],
    },
    options: [
      { name: "Standard", price: 19.99, benefits: ["Plugin jar"] },
      { name: "Premium", price: 39.99, benefits: ["Plugin jar", "Source code access"] },
    ],
  },
  {
    // Listed by the store's admin, owned through `vendor_id` by Victor.
    key: "chat-guard",
    seller: "admin",
    vendor: "victor",
    fields: {
      name: "Chat Guard",
      description: "Spam and swear filter for chat.",
      discount: 10,
      tags: ["chat", "moderation"],
      cover_image: "products/chat-guard/cover.png",
    },
    options: [{ name: "Standard", price: 14.99, benefits: ["Plugin jar"] }],
  },
  {
    // Hidden: its owner and admins see it, customers get a 404.
    key: "beta-toolkit",
    seller: "victor",
    fields: {
      name: "Beta Toolkit",
      description: "Unreleased tools, for testers.",
      hidden: true,
      tags: ["beta"],
    },
    options: [{ name: "Early access", price: 9.99, benefits: ["Nightly builds"] }],
  },
];

const PURCHASES: {
  buyer: UserKey;
  product: string;
  option: string;
  price: Omit<CreatePurchaseInput, "user_id" | "product_id" | "option_id">;
}[] = [
  { buyer: "carla", product: "ultra-perms", option: "Premium", price: { unit_price: 39.99 } },
  {
    buyer: "carla",
    product: "chat-guard",
    option: "Standard",
    price: { unit_price: 13.99, currency: "EUR" },
  },
  {
    // Paid in pounds, recorded in euros.
    buyer: "chen",
    product: "ultra-perms",
    option: "Standard",
    price: { unit_price: 18.49, currency: "EUR", original_unit_price: 15.99, original_currency: "GBP" },
  },
  { buyer: "dana", product: "chat-guard", option: "Standard", price: { unit_price: 14.99, quantity: 2 } },
];

// ---- Seeding ----

/** The demo data is made once; seeding it again would only collide on its fixed e-mail addresses. */
export class DemoAlreadySeeded extends AppError {
  constructor() {
    super(409, `the demo data is already seeded (${ADMIN.email} exists); nothing was changed.`);
  }
}

export interface DemoUser {
  id: number;
  name: string;
  email: string;
  role: string;
  /** A personal access token with all of the role's permissions, shown only here. */
  token: string;
  /** The dashboard password (a random one per user, so a demo left running is not open to all), shown only here. */
  password: string;
}

const PASSWORD_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789";
/** `xxxx-xxxx-xxxx`: about 60 random bits, without look-alike characters, easy to type from a terminal. */
function demoPassword(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  const chars = [...bytes].map((byte) => PASSWORD_ALPHABET[byte % PASSWORD_ALPHABET.length]).join("");
  return `${chars.slice(0, 4)}-${chars.slice(4, 8)}-${chars.slice(8)}`;
}

/** What `depot demo:seed --json` prints: every id, token and key it made. */
export type DemoSeed = {
  users: { admin: DemoUser; vendors: DemoUser[]; customers: DemoUser[]; support: DemoUser };
  products: {
    id: number;
    name: string;
    slug: string;
    hidden: boolean;
    user_id: number;
    vendor_id: number | null;
    options: { id: number; name: string; price: number }[];
    benefits: { id: number; option_id: number; name: string }[];
  }[];
  purchases: {
    id: number;
    user_id: number;
    product_id: number;
    option_id: number;
    formatted_price: string;
  }[];
  licenses: { id: string; key: string; user_id: number; product_id: number }[];
  api_keys: { all: { id: number; key: string }; vendor: { id: number; key: string; creator_id: number } };
};

/**
 * Seeds the demo catalogue in one transaction: it all exists afterwards, or none of it does. Then the
 * products' images are put in PUBLIC_DIR (where none exist yet), so their URLs answer.
 */
export async function seedDemo(ctx: Pick<AppContext, "db" | "config">): Promise<DemoSeed> {
  const seeded = await seedCatalogue(ctx);
  for (const { fields } of PRODUCTS) {
    for (const ref of [fields.cover_image, ...(fields.gallery_images ?? [])]) {
      if (ref) await writePlaceholderImage(join(ctx.config.publicDir, ref));
    }
  }
  return seeded;
}

/** A 1×1 PNG: enough for an image URL to show something. */
const PLACEHOLDER_PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);

async function writePlaceholderImage(path: string) {
  mkdirSync(dirname(path), { recursive: true, mode: PRIVATE_DIRECTORY });
  await writeFile(path, PLACEHOLDER_PNG, { flag: "wx", mode: PRIVATE_FILE }).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code !== "EEXIST") throw error; // an operator's own image stays
    },
  );
}

/** A password and its hash for every demo user, hashed side by side (argon2 is slow on purpose). */
async function demoPasswords(): Promise<Map<UserKey, { password: string; hash: string }>> {
  const keys: UserKey[] = ["admin", ...VENDORS.map((v) => v.key), ...CUSTOMERS.map((c) => c.key), "support"];
  const made = await Promise.all(
    keys.map(async (key) => {
      const password = demoPassword();
      return [key, { password, hash: await hashPassword(password) }] as const;
    }),
  );
  return new Map(made);
}

async function seedCatalogue(ctx: Pick<AppContext, "db" | "config">): Promise<DemoSeed> {
  // Hashed before the transaction, so it is not held open meanwhile.
  const passwords = await demoPasswords();
  return withTransaction(ctx, async (tx) => {
    const [existing] = await tx.db
      .select({ id: users.id })
      .from(users)
      .where(emailMatches(users.email, ADMIN.email));
    if (existing) throw new DemoAlreadySeeded();

    await createRole(tx, SUPPORT_ROLE);
    const people = new Map<UserKey, DemoUser>();
    const addUser = async (key: UserKey, person: { name: string; email: string }, role: string) => {
      const credentials = passwords.get(key);
      if (!credentials) throw new Error(`no demo password for "${key}"`);
      const { password, hash } = credentials;
      const { user } = await createUser(tx, { ...person, role }, hash);
      const { token } = await createToken(tx, user.id, { name: "demo" });
      const made = { id: user.id, name: user.name, email: user.email, role, token, password };
      people.set(key, made);
      return made;
    };
    const idOf = (key: UserKey) => {
      const person = people.get(key);
      if (!person) throw new Error(`demo data names an unknown user "${key}"`);
      return person.id;
    };

    const admin = await addUser("admin", ADMIN, "admin");
    const vendors = [];
    for (const vendor of VENDORS) vendors.push(await addUser(vendor.key, vendor, "vendor"));
    const customers = [];
    for (const customer of CUSTOMERS) customers.push(await addUser(customer.key, customer, "customer"));
    const support = await addUser("support", SUPPORT, SUPPORT_ROLE.name);

    const products: DemoSeed["products"] = [];
    const optionIds = new Map<string, number>(); // "product/option" → option id
    const productIds = new Map<string, number>();
    for (const demo of PRODUCTS) {
      const { product } = await createProduct(tx, {
        ...demo.fields,
        user_id: idOf(demo.seller),
        vendor_id: demo.vendor ? idOf(demo.vendor) : null,
      });
      productIds.set(demo.key, product.id);
      const made: DemoSeed["products"][number] = {
        id: product.id,
        name: product.name,
        slug: product.slug,
        hidden: product.hidden,
        user_id: product.userId,
        vendor_id: product.vendorId,
        options: [],
        benefits: [],
      };
      for (const { name, price, benefits } of demo.options) {
        const option = await createOption(tx, product.id, { name, price });
        optionIds.set(`${demo.key}/${name}`, option.id);
        made.options.push({ id: option.id, name: option.name, price: Number(option.price) });
        for (const benefit of benefits) {
          const row = await createBenefit(tx, product.id, { option_id: option.id, name: benefit });
          made.benefits.push({ id: row.id, option_id: option.id, name: row.name });
        }
      }
      products.push(made);
    }

    const purchases: DemoSeed["purchases"] = [];
    for (const demo of PURCHASES) {
      const productId = productIds.get(demo.product);
      const optionId = optionIds.get(`${demo.product}/${demo.option}`);
      if (productId === undefined || optionId === undefined)
        throw new Error(`demo data names an unknown product or option "${demo.product}/${demo.option}"`);
      const { purchase, symbol, decimals } = await createPurchase(tx, {
        ...demo.price,
        user_id: idOf(demo.buyer),
        product_id: productId,
        option_id: optionId,
      });
      purchases.push({
        id: purchase.id,
        user_id: purchase.userId,
        product_id: productId,
        option_id: optionId,
        formatted_price: formatPrice(Number(purchase.unitPrice), symbol, decimals),
      });
    }

    // One license per purchase, owned by its buyer and created by the product's seller; the last
    // one is also bound to at most 3 machines (README, "Machines"), the others count none.
    const licenses: DemoSeed["licenses"] = [];
    const seller = new Map(products.map((p) => [p.id, p.user_id]));
    for (const [i, purchase] of purchases.entries()) {
      const license = await createLicense(
        tx,
        { id: 0, creatorId: null },
        {
          ownerId: String(purchase.user_id),
          creatorId: String(seller.get(purchase.product_id)),
          productId: String(purchase.product_id),
          maxIps: 2,
          ...(i === purchases.length - 1 ? { maxMachines: 3 } : {}),
        },
      );
      licenses.push({
        id: license.id,
        key: license.key,
        user_id: license.userId,
        product_id: license.productId,
      });
    }

    // 90 days of usage, so the dashboard's overview shows something on a first run. The versions it
    // names are those the README's tour publishes first; the demo itself publishes none.
    await seedUsage(
      tx,
      products.map((product, index) => ({
        id: product.id,
        name: product.name,
        versions: ["1.0.0", "1.1.0", "1.2.0"],
        scale: [1, 0.5, 0.2][index] ?? 0.2,
        clients: [60, 30, 12][index] ?? 12,
        rollout: false,
      })),
    );

    const all = await createApiKey(tx, { name: "demo", creatorId: null });
    // Acts only for licenses Vera creates: what a vendor's shop integration would hold.
    const vera = idOf("vera");
    const vendorKey = await createApiKey(tx, { name: "demo vendor", creatorId: vera });
    return {
      users: { admin, vendors, customers, support },
      products,
      purchases,
      licenses,
      api_keys: {
        all: { id: all.id, key: all.key },
        vendor: { id: vendorKey.id, key: vendorKey.key, creator_id: vera },
      },
    };
  });
}
