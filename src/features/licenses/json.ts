import { t } from "elysia";
import type { License, LicenseIp, Product } from "../../db/schema/index.ts";
import { simplePage, simplePageOf } from "../../http/pagination.ts";
import { dataOf } from "../../http/schemas.ts";
import type { PageRequest } from "../../page-request.ts";
import { Int } from "../../validation/schemas.ts";
import { DashboardMachineJson, MachineJson, toDashboardMachineJson } from "../machines/json.ts";
import type { OwnLicenseRow } from "./own.ts";
import type { ProductLicenseRow } from "./product-licenses.ts";

// Every shape a license takes on the wire, and the mappers that make them from rows. The license API
// (/api/v1/licenses, x-api-key) speaks the SPEC's camelCase with ids as strings; the dashboard's pages
// (a product's licenses, the customer's own) speak snake_case with a status word.

const Timestamp = t.String({ format: "date-time" });
const Expires = t.Union([Timestamp, t.Null()], { description: "null: never expires" });

// --- the license API: /api/v1/licenses, validate and checkout ------------------------------------

export const LicenseJson = t.Object({
  id: t.String({ format: "uuid" }),
  userId: t.String(),
  creatorId: t.String(),
  productId: t.String(),
  expires: Expires,
  maxIps: t.Union([Int(), t.Null()], { description: "null: no address limit" }),
  key: t.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  maxMachines: t.Optional(t.Union([Int(), t.Null()], { description: "null: machines are uncounted" })),
  floating: t.Optional(t.Boolean()),
  heartbeatSeconds: t.Optional(t.Union([Int(), t.Null()])),
  machineFileTtlMax: t.Optional(
    t.Union([Int(), t.Null()], {
      description:
        "the longest a license file of this license lasts, in seconds; null: the product's default, else 7 days for a license with maxMachines",
    }),
  ),
  policyId: t.Optional(t.String({ description: "the license policy it follows; absent: none" })),
});
export type LicenseJson = typeof LicenseJson.static;

/**
 * A license in the license API's shape. The machine settings are there only for a license that uses
 * them (a machine limit, heartbeats or a file ceiling): every other license reads exactly as it did
 * before machines.
 */
export const toLicenseJson = (license: License): LicenseJson => ({
  id: license.id,
  userId: String(license.userId),
  creatorId: String(license.creatorId),
  productId: String(license.productId),
  expires: license.expires?.toISOString() ?? null,
  maxIps: license.maxIps,
  key: license.key,
  createdAt: license.createdAt.toISOString(),
  updatedAt: license.updatedAt.toISOString(),
  ...(usesMachines(license)
    ? {
        maxMachines: license.maxMachines,
        floating: license.floating,
        heartbeatSeconds: license.heartbeatSeconds,
        machineFileTtlMax: license.machineFileTtlMax,
      }
    : {}),
  ...(license.policyId === null ? {} : { policyId: String(license.policyId) }),
});

/** A license that counts machines, wants heartbeats from them or bounds its files' lifetime. */
export const usesMachines = (
  license: Pick<License, "maxMachines" | "floating" | "heartbeatSeconds" | "machineFileTtlMax">,
) =>
  license.maxMachines !== null ||
  license.floating ||
  license.heartbeatSeconds !== null ||
  license.machineFileTtlMax !== null;

export const LicensePageJson = t.Object({
  licenses: t.Array(LicenseJson),
  nextPage: t.Union([Int(), t.Null()]),
});

export const toLicensePageJson = (licenses: License[], nextPage: number | null = null) => ({
  licenses: licenses.map(toLicenseJson),
  nextPage,
});

const LicenseIpJson = t.Object({ ip: t.String(), firstSeenAt: Timestamp, lastSeenAt: Timestamp });
export const LicenseIpsJson = t.Object({ ips: t.Array(LicenseIpJson) });

export const toLicenseIpJson = (row: LicenseIp): typeof LicenseIpJson.static => ({
  ip: row.ip,
  firstSeenAt: row.firstSeenAt.toISOString(),
  lastSeenAt: row.lastSeenAt.toISOString(),
});

export const VALIDATION_CODES = [
  "NOT_FOUND",
  "REVOKED",
  "EXPIRED",
  "PRODUCT_MISMATCH",
  "FINGERPRINT_REQUIRED",
  "NOT_ACTIVATED",
  "HEARTBEAT_DEAD",
  "TOO_MANY_IPS",
  "VALID",
] as const;
export type ValidationCode = (typeof VALIDATION_CODES)[number];

export const ValidationResultJson = t.Object({
  valid: t.Boolean(),
  code: t.UnionEnum(VALIDATION_CODES),
  detail: t.String(),
  ts: t.String({ format: "date-time", description: "server time of the check" }),
  nonce: t.Union([t.String(), t.Null()], { description: "the request's nonce, echoed" }),
  license: t.Union([LicenseJson, t.Null()]),
  ips: t.Object({
    count: Int(),
    max: t.Union([Int(), t.Null()], { description: "null: no address limit (0 for an unknown key)" }),
  }),
  machines: t.Optional(
    t.Object(
      {
        count: Int({ description: "seats in use: alive machines and machines whose license file is valid" }),
        max: t.Union([Int(), t.Null()]),
      },
      { description: "for a license with maxMachines, or when a fingerprint was given" },
    ),
  ),
  machine: t.Optional(
    t.Union([MachineJson, t.Null()], {
      description: "when a fingerprint was given: its machine, if activated",
    }),
  ),
});
export type ValidationResultJson = typeof ValidationResultJson.static;

/** Said in the document of every route whose answers `signedAnswers` signs. */
export const SIGNED =
  " Every answer, errors included, is signed: `Content-Digest` (RFC 9530) and an Ed25519 `Signature` " +
  "(RFC 9421) by a key in `/.well-known/jwks.json`.";

export const CheckoutResultJson = t.Object({
  ...ValidationResultJson.properties,
  license_file: t.Optional(
    t.String({ description: "only when valid: the signed license file (a JWS between armour lines)" }),
  ),
  license_file_expires_at: t.Optional(t.String({ format: "date-time" })),
});

/**
 * What activating a machine answers (features/machines/activation-answer.ts): the machine and its
 * license. Kept here beside validate's answer, which also holds both, since this module already builds
 * on machines/json.ts and that one cannot import this one back.
 */
export const ActivationJson = t.Object({
  machine: MachineJson,
  license: LicenseJson,
  nonce: t.Union([t.String(), t.Null()], { description: "the request's nonce, echoed" }),
  license_file: t.Optional(
    t.String({ description: "offline activations only: the license file bound to this machine" }),
  ),
  license_file_expires_at: t.Optional(
    t.String({
      format: "date-time",
      description:
        "the file's exp: the ttl asked for, cut to the license's machineFileTtlMax (and expiry, and lease)",
    }),
  ),
});

export type ActivationJson = typeof ActivationJson.static;

// --- the dashboard: a product's licenses (/api/products/{product}/licenses), the customer's own
// (/api/licenses) ---------------------------------------------------------------------------------

export const LICENSE_STATUSES = ["active", "expired", "revoked"] as const;
const Status = t.UnionEnum(LICENSE_STATUSES, { description: "revoked wins over expired" });

/** What a license is now, for its owner and vendor alike: revoked wins over expired, expired over active. */
export function licenseStatus(license: Pick<License, "revokedAt" | "expires">, now = Date.now()) {
  if (license.revokedAt !== null) return "revoked" as const;
  if (license.expires !== null && license.expires.getTime() <= now) return "expired" as const;
  return "active" as const;
}

const DashboardIpJson = t.Object({ ip: t.String(), first_seen_at: Timestamp, last_seen_at: Timestamp });

export const toDashboardIpJson = (row: LicenseIp): typeof DashboardIpJson.static => ({
  ip: row.ip,
  first_seen_at: row.firstSeenAt.toISOString(),
  last_seen_at: row.lastSeenAt.toISOString(),
});

export const ProductLicenseIpsJson = t.Object({ data: t.Array(DashboardIpJson) });

export const toProductLicenseIpsJson = (rows: LicenseIp[]): typeof ProductLicenseIpsJson.static => ({
  data: rows.map(toDashboardIpJson),
});

export const ProductLicenseJson = t.Object({
  id: t.String({ format: "uuid" }),
  key: t.String(),
  owner: t.Object({ id: Int(), name: t.String(), email: t.String() }),
  expires: Expires,
  revoked: t.Boolean(),
  status: Status,
  max_ips: t.Union([Int(), t.Null()], { description: "null: no address limit" }),
  ip_count: Int({ description: "addresses registered now" }),
  max_machines: t.Union([Int(), t.Null()], { description: "null: machines are uncounted" }),
  machine_count: Int({
    description: "seats in use: alive machines now, and machines whose license file is still valid",
  }),
  floating: t.Boolean({ description: "a seat is a lease kept by heartbeats" }),
  heartbeat_seconds: t.Union([Int(), t.Null()], { description: "null: no heartbeats" }),
  machine_file_ttl_max: t.Union([Int(), t.Null()], {
    description: "the longest a license file lasts, in seconds; null: the product's default",
  }),
  policy_id: t.Union([Int(), t.Null()], { description: "the license policy it follows; null: none" }),
  created_at: Timestamp,
});
export type ProductLicenseJson = typeof ProductLicenseJson.static;

export const toProductLicenseJson = ({
  license,
  owner,
  ipCount,
  machineCount,
}: ProductLicenseRow): ProductLicenseJson => ({
  id: license.id,
  key: license.key,
  owner,
  expires: license.expires?.toISOString() ?? null,
  revoked: license.revokedAt !== null,
  status: licenseStatus(license),
  max_ips: license.maxIps,
  ip_count: ipCount,
  max_machines: license.maxMachines,
  machine_count: machineCount,
  floating: license.floating,
  heartbeat_seconds: license.heartbeatSeconds,
  machine_file_ttl_max: license.machineFileTtlMax,
  policy_id: license.policyId,
  created_at: license.createdAt.toISOString(),
});

/** One license of a product, in Laravel's resource wrapper: what creating or changing one answers. */
export const ProductLicenseDataJson = dataOf(ProductLicenseJson);

export const toProductLicenseDataJson = (row: ProductLicenseRow) => ({ data: toProductLicenseJson(row) });

export const ProductLicensePageJson = simplePageOf(ProductLicenseJson);

/** A product's license settings: the defaults its licenses take when they set none. */
export const ProductLicenseSettingsJson = dataOf(
  t.Object({
    machine_file_ttl_max: t.Union([Int(), t.Null()], {
      description:
        "the longest a license file of the product's licenses lasts, in seconds, for a license without its own; " +
        "null: 7 days for a license with max_machines, none for the others",
    }),
  }),
);

export const toProductLicenseSettingsJson = (
  product: Pick<Product, "machineFileTtlMax">,
): typeof ProductLicenseSettingsJson.static => ({
  data: { machine_file_ttl_max: product.machineFileTtlMax },
});

/** A page of a product's licenses, as `simplePage` lays it out (its links are the request's URL). */
export const toProductLicensePage = (
  { rows, page }: { rows: ProductLicenseRow[]; page: PageRequest },
  request: Request,
) => simplePage(rows.map(toProductLicenseJson), page, request);

export const OwnLicenseJson = t.Object({
  id: t.String({ format: "uuid" }),
  key: t.String(),
  product: t.Object({ id: Int(), name: t.String() }),
  expires: Expires,
  revoked: t.Boolean(),
  status: Status,
  max_ips: t.Union([Int(), t.Null()], { description: "null: no address limit" }),
  ips: t.Array(DashboardIpJson),
  ip_resets_left: Int({
    description: "self-service resets (DELETE /api/licenses/{id}/ips) left in the last 24 hours",
  }),
  max_machines: t.Union([Int(), t.Null()], { description: "null: machines are uncounted" }),
  machines: t.Array(DashboardMachineJson, { description: "oldest first, alive or not" }),
  created_at: Timestamp,
});
export type OwnLicenseJson = typeof OwnLicenseJson.static;

export const toOwnLicenseJson = ({
  license,
  product,
  ips,
  ipResetsLeft,
  machines,
}: OwnLicenseRow): OwnLicenseJson => ({
  id: license.id,
  key: license.key,
  product,
  expires: license.expires?.toISOString() ?? null,
  revoked: license.revokedAt !== null,
  status: licenseStatus(license),
  max_ips: license.maxIps,
  ips: ips.map(toDashboardIpJson),
  ip_resets_left: ipResetsLeft,
  max_machines: license.maxMachines,
  machines: machines.map(toDashboardMachineJson),
  created_at: license.createdAt.toISOString(),
});

/** A page of the user's own licenses, as `simplePage` lays it out (its links are the request's URL). */
export const toOwnLicensePage = (
  { rows, page }: { rows: OwnLicenseRow[]; page: PageRequest },
  request: Request,
) => simplePage(rows.map(toOwnLicenseJson), page, request);
