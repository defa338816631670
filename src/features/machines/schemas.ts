import { t } from "elysia";
import { Invalid } from "../../errors.ts";
import { Text } from "../../validation/schemas.ts";
import { Ttl } from "../licenses/schemas.ts";
import { Fingerprint } from "./fingerprint.ts";

// What the machine routes take in. What they answer is in json.ts.

const Detail = (description: string, maxLength = 255) => t.Optional(Text({ maxLength, description }));

/** A machine's own fields, as an activation (online or offline) names them. */
export const MachineFields = {
  key: t.String({ minLength: 1, maxLength: 200 }),
  fingerprint: Fingerprint,
  name: Detail("a name the customer recognises, e.g. “Ada's laptop”"),
  platform: Detail("e.g. windows-x64, macos-arm64, linux-x64", 100),
  hostname: Detail("the machine's host name"),
};

export const ActivateBody = t.Object(
  {
    ...MachineFields,
    nonce: t.Optional(
      t.String({ maxLength: 200, description: "echoed in the answer, to pair it with the request" }),
    ),
    offline: t.Optional(
      t.Boolean({
        description: "true: the answer also carries the machine-bound license file (offline activation)",
      }),
    ),
    ttl: t.Optional(Ttl),
  },
  { additionalProperties: false },
);
export type ActivateInput = typeof ActivateBody.static;

/** A heartbeat's query: the nonce its signed answer echoes, as validate's body carries one. */
export const HeartbeatQuery = t.Object({
  nonce: t.Optional(
    t.String({
      maxLength: 200,
      description: "echoed in the answer (and its refusals), to pair it with the request",
    }),
  ),
});

/**
 * A deactivation's query: `force=true` (x-api-key only) frees a seat a valid license file holds. A
 * string read by forceRequested: an enum here would be filled in with its first value when absent.
 */
export const DeactivateQuery = t.Object({
  force: t.Optional(
    t.String({
      description:
        '"true" (with an x-api-key only): deactivate even while its license file is valid, which revokes nothing offline; default "false"',
    }),
  ),
});

/** `?force=`: "true" or "false" (the default); anything else is a 422 on force. */
export function forceRequested(raw: string | undefined): boolean {
  if (raw === undefined || raw === "false") return false;
  if (raw === "true") return true;
  throw new Invalid({ force: ["The force field must be true or false."] });
}
