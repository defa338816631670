import { t } from "elysia";
import { Int } from "../../validation/schemas.ts";

// What the license policy routes take in. Each setting's range is checked by the license service's
// rules (licenses/service.ts checkedSettings), with the messages a license's own fields get.

const settings = {
  max_machines: t.Union([Int(), t.Null()], {
    description: "0–10,000 alive machines at most; null (the default): machines are optional and uncounted",
  }),
  max_ips: t.Union([Int(), t.Null()], {
    description: "1–10,000 addresses at most; null: no address limit (the default with max_machines)",
  }),
  floating: t.Boolean({ description: "a seat is a lease kept by heartbeats (default false)" }),
  heartbeat_seconds: t.Union([Int(), t.Null()], {
    description: "10–86,400; null: no heartbeats. A floating policy needs them (600 when not given)",
  }),
  duration_seconds: t.Union([Int(), t.Null()], {
    description: "a new license expires this long after it is made (1 to 315,360,000 s); null: never",
  }),
  machine_file_ttl_max: t.Union([Int(), t.Null()], {
    description: "the longest a license file lasts, 3,600–31,536,000 seconds; null: the product's default",
  }),
};

export const CreatePolicyBody = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: 255, format: "plain-text" }),
    max_machines: t.Optional(settings.max_machines),
    max_ips: t.Optional(settings.max_ips),
    floating: t.Optional(settings.floating),
    heartbeat_seconds: t.Optional(settings.heartbeat_seconds),
    duration_seconds: t.Optional(settings.duration_seconds),
    machine_file_ttl_max: t.Optional(settings.machine_file_ttl_max),
  },
  { additionalProperties: false },
);
export type CreatePolicyInput = typeof CreatePolicyBody.static;

export const UpdatePolicyBody = t.Partial(CreatePolicyBody, { additionalProperties: false });
export type UpdatePolicyInput = typeof UpdatePolicyBody.static;
