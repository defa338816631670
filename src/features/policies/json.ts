import { t } from "elysia";
import type { LicensePolicy } from "../../db/schema/index.ts";
import { dataOf } from "../../http/schemas.ts";
import { Int } from "../../validation/schemas.ts";

// A license policy on the wire (/api/products/{product}/license-policies), snake_case as the dashboard's
// other shapes.

const Timestamp = t.String({ format: "date-time" });
const Nullable = (description: string) => t.Union([Int(), t.Null()], { description });

export const PolicyJson = t.Object({
  id: Int(),
  product_id: Int(),
  name: t.String(),
  max_machines: Nullable("null: machines are uncounted"),
  max_ips: Nullable("null: no address limit"),
  floating: t.Boolean(),
  heartbeat_seconds: Nullable("null: no heartbeats"),
  duration_seconds: Nullable("a new license expires this long after it is made; null: never"),
  machine_file_ttl_max: Nullable("null: the product's default"),
  license_count: Int({ description: "licenses made from it (revoked ones included)" }),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type PolicyJson = typeof PolicyJson.static;

export const toPolicyJson = (policy: LicensePolicy, licenseCount: number): PolicyJson => ({
  id: policy.id,
  product_id: policy.productId,
  name: policy.name,
  max_machines: policy.maxMachines,
  max_ips: policy.maxIps,
  floating: policy.floating,
  heartbeat_seconds: policy.heartbeatSeconds,
  duration_seconds: policy.durationSeconds,
  machine_file_ttl_max: policy.machineFileTtlMax,
  license_count: licenseCount,
  created_at: policy.createdAt.toISOString(),
  updated_at: policy.updatedAt.toISOString(),
});

export const PolicyDataJson = dataOf(PolicyJson);
export const toPolicyDataJson = (row: { policy: LicensePolicy; licenseCount: number }) => ({
  data: toPolicyJson(row.policy, row.licenseCount),
});

export const PolicyListJson = t.Object({ data: t.Array(PolicyJson) });
export const toPolicyListJson = (rows: { policy: LicensePolicy; licenseCount: number }[]) => ({
  data: rows.map((row) => toPolicyJson(row.policy, row.licenseCount)),
});
