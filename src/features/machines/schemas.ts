import { t } from "elysia";
import { Ttl } from "../licenses/schemas.ts";
import { Fingerprint } from "./fingerprint.ts";

// What the machine routes take in. What they answer is in json.ts.

const Detail = (description: string, maxLength = 255) =>
  t.Optional(t.String({ maxLength, format: "printable", description }));

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
