import { t } from "elysia";
import { PageQuery } from "../../http/pagination.ts";
import { Int } from "../../validation/schemas.ts";

/** A license as the API shows it, with `key`, `createdAt`, `updatedAt`. Ids are strings. */
export const LicenseJson = t.Object({
  id: t.String({ format: "uuid" }),
  userId: t.String(),
  creatorId: t.String(),
  productId: t.String(),
  expires: t.Union([t.String({ format: "date-time" }), t.Null()], { description: "null: never expires" }),
  maxIps: Int(),
  key: t.String(),
  createdAt: t.String({ format: "date-time" }),
  updatedAt: t.String({ format: "date-time" }),
});
export type LicenseJson = typeof LicenseJson.static;

export const LicensePageJson = t.Object({
  licenses: t.Array(LicenseJson),
  nextPage: t.Union([Int(), t.Null()]),
});

/** A user or product id as clients send it: a string of digits (a JSON integer is taken too). */
const IdRef = t.Union([t.String({ minLength: 1, maxLength: 32 }), Int()]);
export const Expires = t.Union([t.String({ maxLength: 64 }), t.Null()], {
  description: "ISO 8601 date-time; null or absent: never expires",
});
export const MaxIps = Int({ minimum: 1, maximum: 10_000 });

export const CreateLicenseBody = t.Object(
  {
    ownerId: IdRef,
    creatorId: IdRef,
    productId: IdRef,
    expires: t.Optional(Expires),
    maxIps: t.Optional(MaxIps),
  },
  { additionalProperties: false },
);
export type CreateLicenseInput = typeof CreateLicenseBody.static;

export const UpdateLicenseBody = t.Partial(CreateLicenseBody, { additionalProperties: false });
export type UpdateLicenseInput = typeof UpdateLicenseBody.static;

export const LicenseListQuery = t.Object({
  page: t.Optional(t.String({ description: "page number, from 1 (50 licenses a page, oldest first)" })),
});

export const LicenseIpsJson = t.Object({
  ips: t.Array(
    t.Object({
      ip: t.String(),
      firstSeenAt: t.String({ format: "date-time" }),
      lastSeenAt: t.String({ format: "date-time" }),
    }),
  ),
});

export const ValidateBody = t.Object(
  {
    key: t.String({ minLength: 1, maxLength: 200 }),
    productId: t.Optional(IdRef),
    nonce: t.Optional(t.String({ maxLength: 200 })),
    ip: t.Optional(
      t.String({
        maxLength: 64,
        description: "honoured only with an x-api-key that may act for the license",
      }),
    ),
  },
  { additionalProperties: false },
);
export type ValidateInput = typeof ValidateBody.static;

/** A license file's lifetime in seconds (an hour to a year; 30 days when absent). */
export const Ttl = Int({
  minimum: 3_600,
  maximum: 31_536_000,
  description: "license file lifetime in seconds",
});

export const CheckoutBody = t.Object(
  { ...ValidateBody.properties, ttl: t.Optional(Ttl) },
  { additionalProperties: false },
);

export const LicenseFileQuery = t.Object({
  ttl: t.Optional(
    t.String({ description: "license file lifetime in seconds, 3600 to 31536000 (default 30 days)" }),
  ),
});

export const VALIDATION_CODES = [
  "NOT_FOUND",
  "REVOKED",
  "EXPIRED",
  "PRODUCT_MISMATCH",
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
  ips: t.Object({ count: Int(), max: Int() }),
});

export const CheckoutResultJson = t.Object({
  ...ValidationResultJson.properties,
  license_file: t.Optional(
    t.String({ description: "only when valid: the signed license file (a JWS between armour lines)" }),
  ),
  license_file_expires_at: t.Optional(t.String({ format: "date-time" })),
});

// --- the vendor face: /api/products/{product}/licenses (session or bearer, snake_case) -------------

export const LICENSE_STATUSES = ["active", "expired", "revoked"] as const;

export const ProductLicenseJson = t.Object({
  id: t.String({ format: "uuid" }),
  key: t.String(),
  owner: t.Object({ id: Int(), name: t.String(), email: t.String() }),
  expires: t.Union([t.String({ format: "date-time" }), t.Null()], { description: "null: never expires" }),
  revoked: t.Boolean(),
  status: t.UnionEnum(LICENSE_STATUSES, { description: "revoked wins over expired" }),
  max_ips: Int(),
  ip_count: Int({ description: "addresses registered now" }),
  created_at: t.String({ format: "date-time" }),
});
export type ProductLicenseJson = typeof ProductLicenseJson.static;

export const ProductLicenseListQuery = t.Object({
  ...PageQuery,
  search: t.Optional(
    t.String({
      maxLength: 255,
      description: "a key (exact or its beginning), or part of the owner's e-mail or name (any case)",
    }),
  ),
});

export const CreateProductLicenseBody = t.Object(
  {
    owner_email: t.String({ minLength: 1, maxLength: 255, description: "an existing user's e-mail" }),
    expires: t.Optional(Expires),
    max_ips: t.Optional(MaxIps),
  },
  { additionalProperties: false },
);
export type CreateProductLicenseInput = typeof CreateProductLicenseBody.static;

/** A registered address, as the dashboard's license pages show it. */
const LicenseIpJson = t.Object({
  ip: t.String(),
  first_seen_at: t.String({ format: "date-time" }),
  last_seen_at: t.String({ format: "date-time" }),
});

export const ProductLicenseIpsJson = t.Object({ data: t.Array(LicenseIpJson) });

/** One of the caller's own licenses, as the dashboard's Licenses page shows it (`GET /api/licenses`). */
export const OwnLicenseJson = t.Object({
  id: t.String({ format: "uuid" }),
  key: t.String(),
  product: t.Object({ id: Int(), name: t.String() }),
  expires: t.Union([t.String({ format: "date-time" }), t.Null()], { description: "null: never expires" }),
  revoked: t.Boolean(),
  status: t.UnionEnum(LICENSE_STATUSES, { description: "revoked wins over expired" }),
  max_ips: Int(),
  ips: t.Array(LicenseIpJson),
  ip_resets_left: Int({
    description: "self-service resets (DELETE /api/licenses/{id}/ips) left in the last 24 hours",
  }),
  created_at: t.String({ format: "date-time" }),
});
export type OwnLicenseJson = typeof OwnLicenseJson.static;
