import { t } from "elysia";
import { Invalid } from "../../errors.ts";
import { normaliseIp } from "../../http/client-ip.ts";
import { PageQuery } from "../../http/pagination.ts";
import { Int, Text } from "../../validation/schemas.ts";
import { Fingerprint } from "../machines/fingerprint.ts";
import { EmailAddress } from "../users/schemas.ts";

// What the license routes take in: bodies, queries and the addresses they name. What they answer is
// in json.ts.

/** A user or product id as clients send it: a string of digits (a JSON integer is taken too). */
const IdRef = t.Union([t.String({ minLength: 1, maxLength: 32 }), Int()]);
const Expires = t.Union([t.String({ maxLength: 64 }), t.Null()], {
  description: "ISO 8601 date-time; null or absent: never expires",
});
// Its range (1–10,000) is checked by the form's rules too: a union reports only "must be an integer".
const MaxIps = t.Union([Int(), t.Null()], {
  description:
    "1–10,000 addresses at most; null: no address limit. Absent: null for a license with maxMachines, else LICENSE_DEFAULT_MAX_IPS",
});
// The machine settings' ranges are checked by the form's rules (service.ts), with messages that say them.
const MaxMachines = t.Union([Int(), t.Null()], {
  description: "0–10,000 alive machines at most; null (the default): machines are optional and uncounted",
});
const HeartbeatSeconds = t.Union([Int(), t.Null()], {
  description: "10–86,400; null: no heartbeats. Floating licenses need them (600 when not given)",
});
const MachineFileTtlMax = t.Union([Int(), t.Null()], {
  description:
    "the longest a license file of this license may last, 3,600–31,536,000 seconds (a longer ttl is cut to it); " +
    "null (the default): the product's default, else 7 days for a license with maxMachines, else none",
});

export const CreateLicenseBody = t.Object(
  {
    ownerId: t.Optional(IdRef),
    ownerEmail: t.Optional(
      t.String({
        ...EmailAddress,
        description:
          "instead of ownerId: the buyer's address; an unknown one becomes a customer, e-mailed the key",
      }),
    ),
    ownerName: t.Optional(
      Text({
        minLength: 1,
        maxLength: 255,
        description: "a new customer's name (default: the address's local part)",
      }),
    ),
    creatorId: IdRef,
    productId: IdRef,
    expires: t.Optional(Expires),
    maxIps: t.Optional(MaxIps),
    maxMachines: t.Optional(MaxMachines),
    floating: t.Optional(t.Boolean({ description: "a seat is a lease kept by heartbeats (default false)" })),
    heartbeatSeconds: t.Optional(HeartbeatSeconds),
    machineFileTtlMax: t.Optional(MachineFileTtlMax),
    policy: t.Optional(
      t.Union([IdRef, t.Null()], {
        description:
          "the id of one of the product's license policies: the license takes every setting it does not name " +
          "from it, and follows the policy when it changes",
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateLicenseInput = typeof CreateLicenseBody.static;

/**
 * The license's policy named on a change: another one of its product's (the settings the license does
 * not name itself take its values), or null (none: it keeps the values it has, as its own).
 */
const PolicyChange = t.Union([IdRef, t.Null()], {
  description:
    "the id of one of the license's product's policies (of the new product, when productId moves it): every " +
    "setting the license has not named itself takes the policy's value and follows it; null: none, the " +
    "license keeps the values it has as its own. The expiry is not changed",
});

/** A change names the owner by id only: `ownerEmail` and `ownerName` are for a sale. */
export const UpdateLicenseBody = t.Partial(
  t.Object({
    ...t.Omit(CreateLicenseBody, ["ownerEmail", "ownerName", "policy"]).properties,
    policy: PolicyChange,
  }),
  { additionalProperties: false },
);
export type UpdateLicenseInput = typeof UpdateLicenseBody.static;

export const LicenseListQuery = t.Object({
  page: t.Optional(t.String({ description: "page number, from 1 (50 licenses a page, oldest first)" })),
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
    fingerprint: t.Optional(Fingerprint),
  },
  { additionalProperties: false },
);

/** How long a license file lasts when the request does not say, and the range a request may ask for. */
export const LICENSE_FILE_TTL = { default: 30 * 86_400, min: 3_600, max: 365 * 86_400 } as const;

/** A license file's lifetime in seconds (an hour to a year; 30 days when absent). */
export const Ttl = Int({
  minimum: LICENSE_FILE_TTL.min,
  maximum: LICENSE_FILE_TTL.max,
  description: "license file lifetime in seconds (cut to the license's machineFileTtlMax)",
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
    policy: t.Optional(
      t.Union([IdRef, t.Null()], {
        description:
          "the id of one of the product's license policies: the settings not given here come from it, and " +
          "follow it when it changes",
      }),
    ),
    expires: t.Optional(Expires),
    max_ips: t.Optional(MaxIps),
    max_machines: t.Optional(
      Int({ minimum: 0, maximum: 10_000, description: "absent: machines are uncounted" }),
    ),
    floating: t.Optional(t.Boolean({ description: "a seat is a lease kept by heartbeats" })),
    heartbeat_seconds: t.Optional(
      Int({ minimum: 10, maximum: 86_400, description: "absent: none, or 600 for a floating license" }),
    ),
    machine_file_ttl_max: t.Optional(
      Int({
        minimum: LICENSE_FILE_TTL.min,
        maximum: LICENSE_FILE_TTL.max,
        description: "the longest a license file may last, in seconds; absent: the product's default",
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateProductLicenseInput = typeof CreateProductLicenseBody.static;

/**
 * A change to a license from its product's page: the settings and the policy the x-api-key PATCH
 * changes (with its types and rules), in snake_case; who owns or made it and its product are not
 * changed here.
 */
export const UpdateProductLicenseBody = t.Object(
  {
    policy: t.Optional(PolicyChange),
    expires: t.Optional(Expires),
    max_ips: t.Optional(MaxIps),
    max_machines: t.Optional(MaxMachines),
    floating: t.Optional(t.Boolean({ description: "a seat is a lease kept by heartbeats" })),
    heartbeat_seconds: t.Optional(HeartbeatSeconds),
    machine_file_ttl_max: t.Optional(MachineFileTtlMax),
  },
  { additionalProperties: false },
);
export type UpdateProductLicenseInput = typeof UpdateProductLicenseBody.static;

/** A change to a product's license settings: the defaults its licenses take when they set none. */
export const ProductLicenseSettingsBody = t.Object(
  {
    machine_file_ttl_max: t.Optional(
      t.Union([Int(), t.Null()], {
        description:
          "the longest a license file of the product's licenses may last, 3,600–31,536,000 seconds, for a " +
          "license without its own machine_file_ttl_max; null: 7 days for a license with max_machines, none for the others",
      }),
    ),
  },
  { additionalProperties: false },
);
export type ProductLicenseSettingsInput = typeof ProductLicenseSettingsBody.static;

/** An address a request names (a body's `ip`, a path's `…/ips/{ip}`) in its one spelling; else 422 on ip. */
export function namedAddress(raw: string): string {
  const ip = normaliseIp(raw);
  if (ip === null) throw new Invalid({ ip: ["The ip field must be a valid IP address."] });
  return ip;
}

/**
 * The address of an `…/ips/{ip}` segment, which Elysia has decoded once. It is decoded once more, as
 * it always was, for clients that encode it twice; a `%` that decodes to nothing fails as an address.
 */
export function addressInPath(segment: string): string {
  try {
    return namedAddress(decodeURIComponent(segment));
  } catch (error) {
    if (error instanceof URIError) return namedAddress(segment);
    throw error;
  }
}
