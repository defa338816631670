import { and, asc, eq, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { isUniqueViolation } from "../../db/errors.ts";
import { type LicensePolicy, licenseIps, licensePolicies, licenses } from "../../db/schema/index.ts";
import { withTransaction } from "../../db/transaction.ts";
import { FieldErrors, Invalid, NotFound } from "../../errors.ts";
import { form } from "../../validation/form.ts";
import type { Actor } from "../auth/actor.ts";
import { managedProduct } from "../licenses/product-licenses.ts";
import {
  checkedSettings,
  DEFAULT_FLOATING_HEARTBEAT_SECONDS,
  type SettingNames,
} from "../licenses/service.ts";
import {
  CreatePolicyBody,
  type CreatePolicyInput,
  UpdatePolicyBody,
  type UpdatePolicyInput,
} from "./schemas.ts";

// A product's license policies (/api/products/{product}/license-policies): named templates of license
// settings, Keygen's model. A license made from one takes every setting it does not name itself, and
// follows the policy when it changes (licenses/service.ts insertLicense keeps which ones it named).
// Managed by whoever manages the product's licenses.

/** The longest a policy's licenses may run from their creation: ten years, in seconds. */
const MAX_DURATION_SECONDS = 315_360_000;

const NAMES: SettingNames = {
  expires: "expires",
  maxIps: "max_ips",
  maxMachines: "max_machines",
  floating: "floating",
  heartbeatSeconds: "heartbeat_seconds",
  machineFileTtlMax: "machine_file_ttl_max",
};

/** The settings' rules a license's own fields have, and a duration of 1 s to ten years. */
function checkedPolicy(input: Partial<CreatePolicyInput>, errors: FieldErrors) {
  checkedSettings(
    {
      maxIps: input.max_ips,
      maxMachines: input.max_machines,
      floating: input.floating,
      heartbeatSeconds: input.heartbeat_seconds,
      machineFileTtlMax: input.machine_file_ttl_max,
    },
    errors,
    NAMES,
  );
  const duration = input.duration_seconds;
  if (typeof duration === "number" && (duration < 1 || duration > MAX_DURATION_SECONDS)) {
    errors.add(
      "duration_seconds",
      `The duration seconds field must be between 1 and ${MAX_DURATION_SECONDS}.`,
    );
  }
}

export const NewPolicyForm = form(CreatePolicyBody, async (_ctx, fields) => {
  const errors = new FieldErrors();
  checkedPolicy(fields, errors);
  errors.throwIfAny();
});

export const PolicyChangeForm = form(UpdatePolicyBody, async (_ctx, fields) => {
  const errors = new FieldErrors();
  checkedPolicy(fields, errors);
  errors.throwIfAny();
});

const nameTaken = () => new Invalid({ name: ["The name has already been taken."] });

/** Columns from a request: only the fields sent; a floating policy without an interval gets 600. */
function columnsOf(
  input: UpdatePolicyInput,
  current: Pick<LicensePolicy, "floating" | "heartbeatSeconds">,
): Partial<LicensePolicy> {
  const columns: Partial<LicensePolicy> = {
    name: input.name?.trim(),
    maxMachines: input.max_machines,
    maxIps: input.max_ips,
    floating: input.floating,
    heartbeatSeconds: input.heartbeat_seconds,
    durationSeconds: input.duration_seconds,
    machineFileTtlMax: input.machine_file_ttl_max,
  };
  const floating = input.floating ?? current.floating;
  const heartbeat =
    input.heartbeat_seconds === undefined ? current.heartbeatSeconds : input.heartbeat_seconds;
  if (floating && heartbeat === null) {
    if (input.heartbeat_seconds === null) {
      throw new Invalid({
        heartbeat_seconds: ["The heartbeat seconds field is required when the policy is floating."],
      });
    }
    columns.heartbeatSeconds = DEFAULT_FLOATING_HEARTBEAT_SECONDS;
  }
  return Object.fromEntries(Object.entries(columns).filter(([, value]) => value !== undefined));
}

// Written out: inside a select list drizzle leaves columns unqualified, and both tables have an id.
const licenseCount = sql<number>`(SELECT count(*) FROM licenses l WHERE l.policy_id = license_policies.id)::int`;

/** A product's policies, by name. */
export async function listPolicies(ctx: Pick<AppContext, "db">, actor: Actor, productId: number) {
  const product = await managedProduct(ctx, actor, productId);
  return ctx.db
    .select({ policy: licensePolicies, licenseCount })
    .from(licensePolicies)
    .where(eq(licensePolicies.productId, product.id))
    .orderBy(asc(sql`lower(${licensePolicies.name})`), asc(licensePolicies.id));
}

/** One policy of a product `actor` may manage; another product's is a 404. */
export async function findPolicy(ctx: Pick<AppContext, "db">, actor: Actor, at: PolicyPath) {
  const product = await managedProduct(ctx, actor, at.product);
  const [row] = await ctx.db
    .select({ policy: licensePolicies, licenseCount })
    .from(licensePolicies)
    .where(and(eq(licensePolicies.id, at.policy), eq(licensePolicies.productId, product.id)));
  if (!row) throw new NotFound("License policy");
  return row;
}

export interface PolicyPath {
  product: number;
  policy: number;
}

export async function createPolicy(
  ctx: Pick<AppContext, "db">,
  actor: Actor,
  productId: number,
  input: CreatePolicyInput,
) {
  const product = await managedProduct(ctx, actor, productId);
  if (product.deletedAt !== null) throw new NotFound("Product");
  const columns = columnsOf(input, { floating: false, heartbeatSeconds: null });
  try {
    const [policy] = await ctx.db
      .insert(licensePolicies)
      .values({ ...columns, name: input.name.trim(), productId: product.id })
      .returning();
    if (!policy) throw new Error("policy insert returned nothing");
    return { policy, licenseCount: 0 };
  } catch (error) {
    if (isUniqueViolation(error)) throw nameTaken();
    throw error;
  }
}

/**
 * Changes a policy and, in the same transaction, every license made from it in each setting the
 * license does not name itself. The policy's row lock orders this against a license being made from
 * it (which holds the policy FOR SHARE): that license is either made with the new numbers or updated
 * here. As a license's own PATCH, a lower max_ips forgets the least recently seen addresses, and a
 * lower max_machines deactivates no machine. A new duration applies to licenses made from now on.
 */
export async function updatePolicy(
  ctx: Pick<AppContext, "db">,
  actor: Actor,
  at: PolicyPath,
  input: UpdatePolicyInput,
) {
  const { policy: current } = await findPolicy(ctx, actor, at);
  const columns = columnsOf(input, current);
  if (Object.keys(columns).length === 0) return findPolicy(ctx, actor, at);
  try {
    await withTransaction(ctx, async (tx) => {
      const [policy] = await tx.db
        .update(licensePolicies)
        .set(columns)
        .where(eq(licensePolicies.id, current.id))
        .returning();
      if (!policy) throw new NotFound("License policy");
      await followPolicy(tx, policy);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw nameTaken();
    throw error;
  }
  return findPolicy(ctx, actor, at);
}

/** Sets `policy`'s settings on its licenses, except those each license names itself. */
async function followPolicy(ctx: Pick<AppContext, "db">, policy: LicensePolicy) {
  const own = (name: string) => sql`${name} = ANY(${licenses.policyOverrides})`;
  const setting = (name: string, column: unknown, value: unknown, type: "int" | "boolean") =>
    sql`CASE WHEN ${own(name)} THEN ${column} ELSE ${value}::${sql.raw(type)} END`;
  const floating = setting("floating", licenses.floating, policy.floating, "boolean");
  const heartbeat = setting("heartbeatSeconds", licenses.heartbeatSeconds, policy.heartbeatSeconds, "int");
  await ctx.db.execute(sql`
    UPDATE ${licenses} SET
      max_ips = ${setting("maxIps", licenses.maxIps, policy.maxIps, "int")},
      max_machines = ${setting("maxMachines", licenses.maxMachines, policy.maxMachines, "int")},
      floating = ${floating},
      heartbeat_seconds = CASE WHEN ${floating}
        THEN coalesce(${heartbeat}, ${DEFAULT_FLOATING_HEARTBEAT_SECONDS}::int) ELSE ${heartbeat} END,
      machine_file_ttl_max = ${setting("machineFileTtlMax", licenses.machineFileTtlMax, policy.machineFileTtlMax, "int")},
      updated_at = now()
    WHERE ${licenses.policyId} = ${policy.id}`);
  // Each license keeps its max_ips most recently seen addresses.
  await ctx.db.execute(sql`
    DELETE FROM ${licenseIps} WHERE (license_id, ip) IN (
      SELECT ranked.license_id, ranked.ip FROM (
        SELECT i.license_id, i.ip, l.max_ips,
          row_number() OVER (PARTITION BY i.license_id ORDER BY i.last_seen_at DESC, i.first_seen_at DESC) AS n
        FROM ${licenseIps} i JOIN ${licenses} l ON l.id = i.license_id
        WHERE l.policy_id = ${policy.id} AND l.max_ips IS NOT NULL
      ) ranked WHERE ranked.n > ranked.max_ips
    )`);
}

/** Deletes a policy; its licenses keep the settings they have now, as their own. */
export async function deletePolicy(ctx: Pick<AppContext, "db">, actor: Actor, at: PolicyPath) {
  const { policy } = await findPolicy(ctx, actor, at);
  await withTransaction(ctx, async (tx) => {
    await tx.db
      .update(licenses)
      .set({ policyId: null, policyOverrides: [] })
      .where(eq(licenses.policyId, policy.id));
    await tx.db.delete(licensePolicies).where(eq(licensePolicies.id, policy.id));
  });
}
