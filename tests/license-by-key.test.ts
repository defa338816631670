import { describe, expect } from "bun:test";
import { eq } from "drizzle-orm";
import { licenseIps, licensePolicies, licenses } from "../src/db/schema/index.ts";
import { toLicenseJson } from "../src/features/licenses/json.ts";
import { licenseByKey } from "../src/features/licenses/license-by-key.ts";
import { readJson, type TestApp } from "./helpers/app.ts";
import { testOnBothDatabases } from "./helpers/both-databases.ts";
import { createProduct, createUser } from "./helpers/factories.ts";

/**
 * The read every validation makes is mapped by hand, not by Drizzle (license-by-key.ts): each field
 * must come out exactly as Drizzle's own select gives it, for a license whose every column holds a
 * value of its own, and the validate answer must carry it.
 */
async function sameAsDrizzle(t: TestApp) {
  const owner = await createUser(t.ctx);
  const vendor = await createUser(t.ctx, { role: "vendor" });
  const product = await createProduct(t.ctx, vendor);
  const [policy] = await t.ctx.db
    .insert(licensePolicies)
    .values({ productId: product.id, name: "Floating" })
    .returning({ id: licensePolicies.id });
  const key = `HAND-${crypto.randomUUID().slice(0, 8).toUpperCase()}-MAPPED-ROW`;
  const id = Bun.randomUUIDv7();
  await t.ctx.db.insert(licenses).values({
    id,
    key,
    userId: owner.id,
    creatorId: vendor.id,
    productId: product.id,
    expires: new Date("2031-02-03T04:05:06.789Z"),
    maxIps: 7,
    maxMachines: 5,
    floating: true,
    heartbeatSeconds: 600,
    machineFileTtlMax: 86_400,
    policyId: policy?.id,
    policyOverrides: ["maxIps", "floating"],
    createdAt: new Date("2030-01-02T03:04:05.678Z"),
    updatedAt: new Date("2030-06-07T08:09:10.111Z"),
  });
  await t.ctx.db.insert(licenseIps).values({ licenseId: id, ip: "198.51.100.7" });

  const [drizzles] = await t.ctx.db.select().from(licenses).where(eq(licenses.id, id));
  const [address] = await t.ctx.db.select().from(licenseIps).where(eq(licenseIps.licenseId, id));
  if (!drizzles || !address) throw new Error("the license was not written");
  // Every column is set to something other than its default, so a swapped or dropped field shows.
  expect(drizzles.ipCount).toBe(1);
  expect(drizzles.policyId).toBeNumber();

  const known = await licenseByKey(t.ctx.database, key, "198.51.100.7");
  expect(known).toEqual({ license: drizzles, lastSeenAt: address.lastSeenAt });
  expect(known?.license.expires).toBeInstanceOf(Date);
  expect(known?.license.userId).toBeNumber();
  expect(Object.keys(known?.license ?? {}).sort()).toEqual(Object.keys(drizzles).sort());

  expect(await licenseByKey(t.ctx.database, key, "203.0.113.9")).toEqual({
    license: drizzles,
    lastSeenAt: null,
  });
  expect(await licenseByKey(t.ctx.database, "HAND-NONE-NONE-NONE", "198.51.100.7")).toBeNull();

  // A revoked license reads its revocation time too.
  const revokedAt = new Date("2030-09-09T09:09:09.999Z");
  await t.ctx.db.update(licenses).set({ revokedAt }).where(eq(licenses.id, id));
  const [revoked] = await t.ctx.db.select().from(licenses).where(eq(licenses.id, id));
  expect((await licenseByKey(t.ctx.database, key, "198.51.100.7"))?.license).toEqual(revoked as never);

  // Through HTTP: the validate answer's license is the row's, in the license API's shape.
  const answer = await fetch(`${t.listen()}/api/v1/licenses/validate`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ key, fingerprint: "no-such-machine" }),
  });
  expect(answer.status).toBe(200);
  const body = await readJson(answer);
  expect(body.code).toBe("REVOKED");
  expect(body.license).toEqual(toLicenseJson(revoked as never));
  expect(body.ips).toEqual({ count: 1, max: 7 });
}

describe("the validation's read of a license by its key", () => {
  testOnBothDatabases(sameAsDrizzle, { timeoutMs: 60_000 });
});
