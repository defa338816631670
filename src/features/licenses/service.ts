import { and, asc, eq, type SQL, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import {
  type License,
  type LicenseIp,
  type LicensePolicy,
  licenseIps,
  licensePolicies,
  licenses,
  type Product,
  products,
  type User,
  users,
} from "../../db/schema/index.ts";
import { withTransaction } from "../../db/transaction.ts";
import { FieldErrors, Forbidden, Invalid, NotFound } from "../../errors.ts";
import { form } from "../../validation/form.ts";
import { invalidId, invalidIdMessage, isUuid, toId } from "../../validation/ids.ts";
import type { ApiKeyActor } from "../auth/actor.ts";
import { findOrCreateCustomer } from "../customers/service.ts";
import { linkFor } from "../password-links/service.ts";
import { passwordFingerprint } from "../password-links/token.ts";
import { ownsProduct } from "../products/service.ts";
import { licenseKeyEmail } from "./jobs.ts";
import { generateLicenseKey } from "./keys.ts";
import {
  CreateLicenseBody,
  type CreateLicenseInput,
  LICENSE_FILE_TTL,
  UpdateLicenseBody,
  type UpdateLicenseInput,
} from "./schemas.ts";

export const LICENSES_PER_PAGE = 50;

/**
 * Whom a license operation acts for: an API key (a key with a creator: that creator's licenses only),
 * or one product's licenses (its page in the dashboard, once the caller was allowed to manage the product).
 */
export type LicenseScope = Pick<ApiKeyActor, "creatorId"> | { productId: number };

export const mayActFor = (scope: LicenseScope, license: Pick<License, "creatorId" | "productId">) =>
  "productId" in scope
    ? scope.productId === license.productId
    : scope.creatorId === null || scope.creatorId === license.creatorId;

/**
 * A key with a creator licenses only that creator's own products (`user_id` or `vendor_id`), hidden
 * or not: a license is a download right, so licensing someone else's product would hand out theirs.
 */
function assertMayLicense(apiKey: ApiKeyActor, product: Pick<Product, "userId" | "vendorId">) {
  if (apiKey.creatorId !== null && !ownsProduct(apiKey.creatorId, product)) {
    throw new Forbidden("This API key may only license its creator's own products.");
  }
}

/** A new license for an owner named by id (`ownerId`), made by the API or the demo seed. */
export async function createLicense(
  ctx: Pick<AppContext, "db" | "config">,
  apiKey: ApiKeyActor,
  input: CreateLicenseInput,
): Promise<License> {
  const { userId, values } = await licenseValues(ctx, apiKey, input);
  return insertLicense(ctx, { userId: userId as number, ...values });
}

/**
 * A new license for a buyer named by address (`ownerEmail`): the user with that address, or a new
 * customer who is e-mailed the key and a set-password link (when SMTP_URL is set). The customer, the
 * license and the e-mail's job are one transaction.
 */
export async function sellLicense(
  ctx: Pick<AppContext, "db" | "config" | "jobs" | "appKey">,
  apiKey: ApiKeyActor,
  input: CreateLicenseInput & { ownerEmail: string },
): Promise<License> {
  const { values } = await licenseValues(ctx, apiKey, input);
  return withTransaction(ctx, async (tx) => {
    const customer = await findOrCreateCustomer(tx, input.ownerEmail, input.ownerName);
    const license = await insertLicense(tx, { userId: customer.user.id, ...values });
    // Only a customer made by this sale is written to: a known address already has its ways in.
    if (customer.created) await queueLicenseKeyEmail(tx, license, customer.user);
    return license;
  });
}

/** The columns of a license the API asked for, once the API key may make it (else 403). */
async function licenseValues(ctx: Pick<AppContext, "db">, apiKey: ApiKeyActor, input: CreateLicenseInput) {
  const { fields, product } = await checkedFields(ctx, input);
  assertOneOwner(input);
  const creatorId = fields.creatorId as number;
  if (apiKey.creatorId !== null && apiKey.creatorId !== creatorId) {
    throw new Forbidden("This API key may only create licenses for its own creator.");
  }
  if (product) assertMayLicense(apiKey, product);
  const values = {
    creatorId,
    productId: fields.productId as number,
    policyId: fields.policyId,
    expires: fields.expires,
    maxIps: fields.maxIps,
    maxMachines: fields.maxMachines,
    floating: fields.floating,
    heartbeatSeconds: fields.heartbeatSeconds,
    machineFileTtlMax: fields.machineFileTtlMax,
  };
  return { userId: fields.userId, values };
}

/**
 * Queues the e-mail with `license`'s key to `owner`, in the caller's transaction, with a set-password
 * link while the owner has no password. Nothing is queued without SMTP_URL.
 */
export async function queueLicenseKeyEmail(
  ctx: Pick<AppContext, "db" | "config" | "jobs" | "appKey">,
  license: License,
  owner: Pick<User, "id" | "passwordHash">,
): Promise<boolean> {
  if (!ctx.config.smtpUrl) return false;
  const link =
    owner.passwordHash === null
      ? { expires: linkFor(ctx, owner).expires, fingerprint: passwordFingerprint(owner.passwordHash) }
      : null;
  await ctx.jobs.sendInTransaction(ctx.db, licenseKeyEmail, { license_id: license.id, link });
  return true;
}

/** `ownerId` or `ownerEmail`, exactly one of them (Laravel's required_without and prohibits). */
function assertOneOwner(input: Pick<CreateLicenseInput, "ownerId" | "ownerEmail">) {
  if (input.ownerId === undefined && input.ownerEmail === undefined) {
    throw new Invalid({ ownerId: ["The ownerId field is required."] });
  }
  if (input.ownerId !== undefined && input.ownerEmail !== undefined) {
    throw new Invalid({ ownerEmail: ["The ownerEmail field prohibits ownerId from being present."] });
  }
}

/** What a new license is made of; the settings left undefined come from its policy, else the defaults. */
export interface NewLicenseFields {
  userId: number;
  creatorId: number;
  productId: number;
  /** A policy of `productId` (else 422 on `policy`); null or absent: none. */
  policyId?: number | null;
  expires?: Date | null;
  maxIps?: number | null;
  maxMachines?: number | null;
  floating?: boolean;
  heartbeatSeconds?: number | null;
  machineFileTtlMax?: number | null;
}

/** The settings a policy holds for its licenses, by their name on a license (and in `policy_overrides`). */
export const POLICY_SETTINGS = [
  "maxIps",
  "maxMachines",
  "floating",
  "heartbeatSeconds",
  "machineFileTtlMax",
] as const;
export type PolicySetting = (typeof POLICY_SETTINGS)[number];

/** The settings `fields` names itself: a change to its policy leaves them alone. */
const namedSettings = (fields: Partial<Record<PolicySetting, unknown>>) =>
  POLICY_SETTINGS.filter((name) => fields[name] !== undefined);

/**
 * The settings a new license takes from `policy` (locked FOR SHARE by the caller's transaction, so a
 * change to the policy waits for this license, then updates it too): each one the license does not
 * name, and an expiry `durationSeconds` from now when it names none.
 */
function fromPolicy(fields: NewLicenseFields, policy: LicensePolicy | null): NewLicenseFields {
  if (!policy) return fields;
  const expires =
    fields.expires !== undefined || policy.durationSeconds === null
      ? fields.expires
      : new Date(Date.now() + policy.durationSeconds * 1000);
  const inherited = Object.fromEntries(
    POLICY_SETTINGS.filter((name) => fields[name] === undefined).map((name) => [name, policy[name]]),
  );
  return { ...fields, ...inherited, expires };
}

/**
 * The one place a license row is made (the API, a product's page): a fresh key, the default `maxIps`
 * (none for a license that counts machines: its machines are its limit, and a laptop moves between
 * addresses; else `LICENSE_DEFAULT_MAX_IPS`).
 */
export async function insertLicense(
  ctx: Pick<AppContext, "db" | "config">,
  given: NewLicenseFields,
): Promise<License> {
  return withTransaction(ctx, async (tx) => {
    const policy = given.policyId ? await policyOfProduct(tx, given.policyId, given.productId) : null;
    const fields = fromPolicy(given, policy);
    const floating = fields.floating ?? false;
    const heartbeatSeconds =
      fields.heartbeatSeconds ?? (floating ? DEFAULT_FLOATING_HEARTBEAT_SECONDS : null);
    const [license] = await tx.db
      .insert(licenses)
      .values({
        id: Bun.randomUUIDv7(),
        key: generateLicenseKey(),
        userId: fields.userId,
        creatorId: fields.creatorId,
        productId: fields.productId,
        policyId: policy?.id ?? null,
        policyOverrides: policy ? namedSettings(given) : [],
        expires: fields.expires ?? null,
        maxIps: fields.maxIps !== undefined ? fields.maxIps : defaultMaxIps(ctx, fields.maxMachines),
        maxMachines: fields.maxMachines ?? null,
        floating,
        heartbeatSeconds,
        machineFileTtlMax: fields.machineFileTtlMax ?? null,
      })
      .returning();
    if (!license) throw new Error("license insert returned nothing");
    return license;
  });
}

/** The policy `id` of product `productId`, held FOR SHARE until the transaction ends; else 422 on `policy`. */
async function policyOfProduct(ctx: Pick<AppContext, "db">, id: number, productId: number) {
  const [policy] = await ctx.db
    .select()
    .from(licensePolicies)
    .where(and(eq(licensePolicies.id, id), eq(licensePolicies.productId, productId)))
    .for("share");
  if (!policy) throw invalidId("policy");
  return policy;
}

const defaultMaxIps = (ctx: Pick<AppContext, "config">, maxMachines: number | null | undefined) =>
  maxMachines === undefined || maxMachines === null ? ctx.config.licenseDefaultMaxIps : null;

/**
 * The license with id `raw` if `scope` may act for it; anything else is the same 404 (one that cannot
 * be a uuid without a query: the routes' paths already refuse it, other callers may not).
 */
export async function findLicense(
  ctx: Pick<AppContext, "db">,
  scope: LicenseScope,
  raw: string,
): Promise<License> {
  if (!isUuid(raw)) throw new NotFound("License");
  const [license] = await ctx.db.select().from(licenses).where(eq(licenses.id, raw.toLowerCase()));
  if (!license || !mayActFor(scope, license)) throw new NotFound("License");
  return license;
}

/** Oldest first, 50 a page; one row more than a page tells whether there is a next one. */
export async function listLicenses(ctx: Pick<AppContext, "db">, apiKey: ApiKeyActor, page: number) {
  const rows = await ctx.db
    .select()
    .from(licenses)
    .where(apiKey.creatorId === null ? undefined : eq(licenses.creatorId, apiKey.creatorId))
    .orderBy(asc(licenses.createdAt), asc(licenses.id))
    .limit(LICENSES_PER_PAGE + 1)
    .offset((page - 1) * LICENSES_PER_PAGE);
  const hasMore = rows.length > LICENSES_PER_PAGE;
  return { licenses: rows.slice(0, LICENSES_PER_PAGE), nextPage: hasMore ? page + 1 : null };
}

/**
 * Any subset of the fields. Lowering `maxIps` below the registered count forgets the least recently
 * seen addresses, in the same transaction that holds the license row. Lowering `maxMachines` below
 * the alive machines deactivates none: they keep their seats, and new ones wait for a free one.
 */
export async function updateLicense(
  ctx: Pick<AppContext, "db">,
  apiKey: ApiKeyActor,
  id: string,
  input: UpdateLicenseInput,
): Promise<License> {
  const { fields, product } = await checkedFields(ctx, input);
  return changeLicense(ctx, apiKey, id, fields, API_NAMES, (current) => {
    if (fields.creatorId !== undefined && !mayActFor(apiKey, { ...current, creatorId: fields.creatorId })) {
      throw new Forbidden("This API key may only assign licenses to its own creator.");
    }
    if (product) assertMayLicense(apiKey, product);
  });
}

/**
 * Writes checked `fields` to the license `id` that `scope` may act for (the x-api-key PATCH, a
 * product's page): `authorize` may refuse once the current row is known; a refusal writes nothing.
 */
export async function changeLicense(
  ctx: Pick<AppContext, "db">,
  scope: LicenseScope,
  id: string,
  fields: CheckedFields,
  names: SettingNames,
  authorize?: (current: License) => void,
): Promise<License> {
  return withTransaction(ctx, async (tx) => {
    const found = await findLicense(tx, scope, id);
    if (Object.keys(fields).length === 0) return found;
    authorize?.(found);
    // A policy named is applied to the overrides as they are: the row is held from this read on.
    const current = fields.policyId === undefined ? found : await lockedLicense(tx, found.id);
    const change = {
      ...fields,
      ...withHeartbeats(fields, current, names),
      ...overridesAfter(fields, current),
      ...(fields.policyId === undefined ? {} : await policyChange(tx, fields, current)),
    };
    // The UPDATE holds the row lock until commit, so no validation registers an address meanwhile.
    const [license] = await tx.db.update(licenses).set(change).where(eq(licenses.id, current.id)).returning();
    if (!license) throw new NotFound("License");
    if (change.maxIps !== undefined && license.maxIps !== null) {
      await forgetLeastRecentIps(tx, license.id, license.maxIps);
    }
    return license;
  });
}

/**
 * What a change does to the license's policy: the settings it names become the license's own; a move
 * to another product leaves the policy (a policy is one product's).
 */
function overridesAfter(
  fields: CheckedFields,
  current: License,
): Partial<Pick<License, "policyId">> & {
  policyOverrides?: SQL | string[];
} {
  const moved = fields.productId !== undefined && fields.productId !== current.productId;
  const named = namedSettings(fields);
  return {
    ...(moved ? { policyId: null } : {}),
    ...(named.length === 0
      ? {}
      : {
          policyOverrides: sql`ARRAY(SELECT DISTINCT unnest(${licenses.policyOverrides} || ARRAY[${sql.join(
            named.map((name) => sql`${name}`),
            sql`, `,
          )}]::text[]) ORDER BY 1)`,
        }),
  };
}

async function lockedLicense(ctx: Pick<AppContext, "db">, id: string): Promise<License> {
  const [license] = await ctx.db.select().from(licenses).where(eq(licenses.id, id)).for("update");
  if (!license) throw new NotFound("License");
  return license;
}

/**
 * What naming a policy on a change does. Null detaches the license: it keeps the values it has, as
 * its own (as when its policy is deleted). A policy of the license's product (the new one, when the
 * change moves it; else 422 on `policy`, held FOR SHARE as for a new license) gives it every setting
 * it has not named itself, in `policy_overrides` or in this change, which it follows from now on. A
 * floating license left without heartbeats gets the default interval. The expiry is not changed: a
 * policy's duration is for licenses made from it.
 */
async function policyChange(ctx: Pick<AppContext, "db">, fields: CheckedFields, current: License) {
  if (fields.policyId === null || fields.policyId === undefined) {
    return { policyId: null, policyOverrides: [] as string[] };
  }
  const policy = await policyOfProduct(ctx, fields.policyId, fields.productId ?? current.productId);
  const own = new Set<string>([...current.policyOverrides, ...namedSettings(fields)]);
  const inherited: Partial<Pick<License, PolicySetting>> = Object.fromEntries(
    POLICY_SETTINGS.filter((name) => !own.has(name)).map((name) => [name, policy[name]]),
  );
  const floating = fields.floating ?? inherited.floating ?? current.floating;
  const heartbeat =
    fields.heartbeatSeconds !== undefined
      ? fields.heartbeatSeconds
      : inherited.heartbeatSeconds !== undefined
        ? inherited.heartbeatSeconds
        : current.heartbeatSeconds;
  if (floating && heartbeat === null) inherited.heartbeatSeconds = DEFAULT_FLOATING_HEARTBEAT_SECONDS;
  return { ...inherited, policyId: policy.id, policyOverrides: [...own].sort() };
}

async function forgetLeastRecentIps(ctx: Pick<AppContext, "db">, licenseId: string, keep: number) {
  await ctx.db.execute(sql`
    DELETE FROM ${licenseIps}
    WHERE ${licenseIps.licenseId} = ${licenseId}
      AND ${licenseIps.ip} NOT IN (
        SELECT ip FROM ${licenseIps} WHERE license_id = ${licenseId}
        ORDER BY last_seen_at DESC, first_seen_at DESC LIMIT ${keep}
      )`);
}

/** Revoking keeps the row (validation answers REVOKED) but ends validity and holding at once. */
export async function revokeLicense(ctx: Pick<AppContext, "db">, scope: LicenseScope, id: string) {
  const license = await findLicense(ctx, scope, id);
  if (license.revokedAt === null) {
    await ctx.db.update(licenses).set({ revokedAt: new Date() }).where(eq(licenses.id, license.id));
  }
}

/** The license's registered addresses, first seen first. */
export async function listIps(
  ctx: Pick<AppContext, "db">,
  scope: LicenseScope,
  id: string,
): Promise<LicenseIp[]> {
  const license = await findLicense(ctx, scope, id);
  return ctx.db
    .select()
    .from(licenseIps)
    .where(eq(licenseIps.licenseId, license.id))
    .orderBy(asc(licenseIps.firstSeenAt), asc(licenseIps.ip));
}

/** Forgets one of the license's addresses, or all of them (`ip` null), if `scope` may act for it. */
export async function forgetLicenseIps(
  ctx: Pick<AppContext, "db">,
  scope: LicenseScope,
  id: string,
  ip: string | null,
) {
  await forgetIps(ctx, (await findLicense(ctx, scope, id)).id, ip);
}

/** Forgets one registered address, or all of them when `ip` is null. 404 for an address not registered. */
export async function forgetIps(ctx: Pick<AppContext, "db">, licenseId: string, ip: string | null) {
  const where =
    ip === null
      ? eq(licenseIps.licenseId, licenseId)
      : and(eq(licenseIps.licenseId, licenseId), eq(licenseIps.ip, ip));
  const deleted = await ctx.db.delete(licenseIps).where(where).returning({ ip: licenseIps.ip });
  if (ip !== null && deleted.length === 0) throw new NotFound("IP address");
}

export interface CheckedFields {
  userId?: number;
  creatorId?: number;
  productId?: number;
  /** A policy named (null: none). On a change it is checked against the license's product by changeLicense. */
  policyId?: number | null;
  expires?: Date | null;
  maxIps?: number | null;
  maxMachines?: number | null;
  floating?: boolean;
  heartbeatSeconds?: number | null;
  machineFileTtlMax?: number | null;
}

/** A floating license's heartbeat interval when none is given. */
export const DEFAULT_FLOATING_HEARTBEAT_SECONDS = 600;

/**
 * The heartbeat settings a change leaves the license with (`current`: what it has now): a floating
 * license without an interval gets the default one, unless the request itself set it to null, which
 * is a 422 (a floating seat is a lease: without heartbeats it would never end).
 */
function withHeartbeats(
  fields: Pick<CheckedFields, "floating" | "heartbeatSeconds">,
  current: Pick<License, "floating" | "heartbeatSeconds">,
  names: SettingNames,
): Pick<CheckedFields, "floating" | "heartbeatSeconds"> {
  const floating = fields.floating ?? current.floating;
  const heartbeatSeconds =
    fields.heartbeatSeconds === undefined ? current.heartbeatSeconds : fields.heartbeatSeconds;
  const given = Object.fromEntries(
    Object.entries({ floating: fields.floating, heartbeatSeconds: fields.heartbeatSeconds }).filter(
      ([, value]) => value !== undefined,
    ),
  );
  if (!floating || heartbeatSeconds !== null) return given;
  if (fields.heartbeatSeconds === null) {
    throw new Invalid({ [names.heartbeatSeconds]: [heartbeatsRequired(names)] });
  }
  return { ...given, heartbeatSeconds: DEFAULT_FLOATING_HEARTBEAT_SECONDS };
}

/** A license's own settings, as the x-api-key PATCH names them: what a product's page may change too. */
export interface LicenseSettingsInput {
  expires?: string | null;
  maxIps?: number | null;
  maxMachines?: number | null;
  floating?: boolean;
  heartbeatSeconds?: number | null;
  machineFileTtlMax?: number | null;
}

/** What each setting is called on the wire, for the 422's keys and messages (snake_case on a product's page). */
export type SettingNames = Record<keyof LicenseSettingsInput, string>;
export const API_NAMES: SettingNames = {
  expires: "expires",
  maxIps: "maxIps",
  maxMachines: "maxMachines",
  floating: "floating",
  heartbeatSeconds: "heartbeatSeconds",
  machineFileTtlMax: "machineFileTtlMax",
};

/** A field's name in a message, as Laravel says it: `max_machines` → "max machines". */
const spoken = (name: string) => name.replaceAll("_", " ");

/** A file lifetime ceiling takes a license file's own range (an hour to a year). */
export const withinFileTtlRange = (seconds: number) =>
  seconds >= LICENSE_FILE_TTL.min && seconds <= LICENSE_FILE_TTL.max;
export const fileTtlRangeMessage = (name: string) =>
  `The ${spoken(name)} field must be between ${LICENSE_FILE_TTL.min} and ${LICENSE_FILE_TTL.max}.`;
const heartbeatsRequired = (names: SettingNames) =>
  `The ${spoken(names.heartbeatSeconds)} field is required when the license is floating.`;

/** An address limit: null (none) or 1–10,000; recorded on `errors` under `name` otherwise. */
export function checkedMaxIps(value: number | null, errors: FieldErrors, name: string) {
  if (value !== null && value < 1) errors.add(name, `The ${spoken(name)} field must be at least 1.`);
  if (value !== null && value > 10_000) {
    errors.add(name, `The ${spoken(name)} field must not be greater than 10000.`);
  }
  return value;
}

/**
 * The settings' rules, the same wherever a license is changed: `maxIps` null or 1–10,000,
 * `maxMachines` null or 0–10,000,
 * `heartbeatSeconds` null or 10–86,400, not floating without heartbeats, `machineFileTtlMax` null or
 * 3,600–31,536,000 (a license file's own range), `expires` ISO 8601. Problems are recorded on
 * `errors` under each field's wire name.
 */
export function checkedSettings(
  input: LicenseSettingsInput,
  errors: FieldErrors,
  names: SettingNames = API_NAMES,
): Pick<CheckedFields, keyof LicenseSettingsInput> {
  const fields: Pick<CheckedFields, keyof LicenseSettingsInput> = {};
  fields.expires = checkedExpires(input.expires, errors, names.expires);
  if (input.maxIps !== undefined) fields.maxIps = checkedMaxIps(input.maxIps, errors, names.maxIps);
  if (input.maxMachines !== undefined) {
    if (input.maxMachines !== null && (input.maxMachines < 0 || input.maxMachines > 10_000)) {
      errors.add(names.maxMachines, `The ${spoken(names.maxMachines)} field must be between 0 and 10000.`);
    }
    fields.maxMachines = input.maxMachines;
  }
  if (input.floating !== undefined) fields.floating = input.floating;
  if (input.heartbeatSeconds !== undefined) {
    if (input.heartbeatSeconds !== null && (input.heartbeatSeconds < 10 || input.heartbeatSeconds > 86_400)) {
      errors.add(
        names.heartbeatSeconds,
        `The ${spoken(names.heartbeatSeconds)} field must be between 10 and 86400.`,
      );
    }
    fields.heartbeatSeconds = input.heartbeatSeconds;
  }
  if (input.floating === true && input.heartbeatSeconds === null) {
    errors.add(names.heartbeatSeconds, heartbeatsRequired(names));
  }
  if (input.machineFileTtlMax !== undefined) {
    if (input.machineFileTtlMax !== null && !withinFileTtlRange(input.machineFileTtlMax)) {
      errors.add(names.machineFileTtlMax, fileTtlRangeMessage(names.machineFileTtlMax));
    }
    fields.machineFileTtlMax = input.machineFileTtlMax;
  }
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
}

type ProductOwners = Pick<Product, "id" | "userId" | "vendorId">;

/**
 * Request fields → columns, each reference checked, all problems in one 422. The product named (if
 * any) comes back with its owners, for the API key's scope.
 */
async function checkedFields(
  ctx: Pick<AppContext, "db">,
  input: UpdateLicenseInput & Pick<Partial<CreateLicenseInput>, "policy">,
): Promise<{ fields: CheckedFields; product: ProductOwners | null }> {
  const errors = new FieldErrors();
  const fields: CheckedFields = {};
  const reference = async <T>(
    field: "ownerId" | "creatorId" | "productId" | "policy",
    find: (id: number) => Promise<T | undefined>,
  ): Promise<T | undefined> => {
    const raw = input[field];
    if (raw === undefined) return undefined;
    const id = toId(raw);
    const found = id === null ? undefined : await find(id);
    if (found === undefined) errors.add(field, `The selected ${field} is invalid.`);
    return found;
  };
  const userId = async (id: number) =>
    (await ctx.db.select({ id: users.id }).from(users).where(eq(users.id, id)))[0]?.id;
  fields.userId = await reference("ownerId", userId);
  fields.creatorId = await reference("creatorId", userId);
  const product = await reference("productId", async (id) => {
    const [row] = await ctx.db
      .select({ id: products.id, userId: products.userId, vendorId: products.vendorId })
      .from(products)
      .where(eq(products.id, id));
    return row;
  });
  fields.productId = product?.id;
  if (input.policy === null) fields.policyId = null;
  else if (input.policy !== undefined && input.productId === undefined) {
    // A change that keeps the license's product: changeLicense checks the policy against it.
    fields.policyId = toId(input.policy) ?? undefined;
    if (fields.policyId === undefined) errors.add("policy", invalidIdMessage("policy"));
  } else if (input.policy !== undefined && product) {
    fields.policyId = await reference("policy", async (id) => {
      const [row] = await ctx.db
        .select({ id: licensePolicies.id })
        .from(licensePolicies)
        .where(and(eq(licensePolicies.id, id), eq(licensePolicies.productId, product.id)));
      return row?.id;
    });
  }
  Object.assign(fields, checkedSettings(input, errors));
  errors.throwIfAny();
  const defined = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
  return { fields: defined as CheckedFields, product: product ?? null };
}

/** A new license: its fields, and owner, creator and product ids that name rows. */
export const NewLicenseForm = form(CreateLicenseBody, async (ctx, fields) => {
  await checkedFields(ctx, fields);
  assertOneOwner(fields);
});

/** A change to a license: any of its fields, each id naming a row. */
export const LicenseChangeForm = form(UpdateLicenseBody, (ctx, fields) => checkedFields(ctx, fields));

/**
 * An `expires` as the API and a product's page take it: absent (undefined), null (never expires) or
 * an ISO 8601 date-time; anything else is recorded on `errors` under `expires`.
 */
export function checkedExpires(
  raw: string | null | undefined,
  errors: FieldErrors,
  name = "expires",
): Date | null | undefined {
  if (raw === undefined || raw === null) return raw;
  const expires = parseDateTime(raw);
  if (expires === undefined)
    errors.add(name, `The ${spoken(name)} field must be a valid ISO 8601 date-time.`);
  return expires;
}

const ISO_DATE_TIME = /^\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d(?::\d\d(?:\.\d{1,9})?)?(Z|[+-]\d\d:?\d\d)?)?$/i;

/**
 * ISO 8601 only (`Date.parse` alone takes oddities such as "1" or "March 7"). A date-time without a
 * zone is UTC, never the server's local time.
 */
function parseDateTime(raw: string): Date | undefined {
  const match = ISO_DATE_TIME.exec(raw);
  if (!match) return undefined;
  const hasTime = raw.length > 10;
  const date = new Date(hasTime && !match[1] ? `${raw}Z` : raw);
  if (Number.isNaN(date.getTime())) return undefined;
  // Bun rolls 2030-02-30 over to March 2nd; a day that does not exist in its month is refused instead.
  const [year, month, day] = raw.slice(0, 10).split("-").map(Number);
  const calendar = new Date(Date.UTC(year ?? 0, (month ?? 1) - 1, day ?? 1));
  return calendar.getUTCMonth() + 1 === month && calendar.getUTCDate() === day ? date : undefined;
}
