import { t } from "elysia";
import type { AppContext } from "../../context.ts";
import { issueLicenseFile, machineBinding } from "../licenses/files.ts";
import { LicenseJson, toLicenseJson } from "../licenses/json.ts";
import { MachineJson, toMachineJson } from "./json.ts";
import type { ActivateInput } from "./schemas.ts";
import type { Activation } from "./service.ts";

export const ActivationJson = t.Object({
  machine: MachineJson,
  license: LicenseJson,
  nonce: t.Union([t.String(), t.Null()], { description: "the request's nonce, echoed" }),
  license_file: t.Optional(
    t.String({ description: "offline activations only: the license file bound to this machine" }),
  ),
  license_file_expires_at: t.Optional(t.String({ format: "date-time" })),
});
export type ActivationJson = typeof ActivationJson.static;

/**
 * An activation's answer: the machine, its license and the nonce; for an offline activation also the
 * license file bound to the machine (its claims carry the fingerprint), which the air-gapped machine
 * verifies with the published keys.
 */
export function activationAnswer(
  ctx: Pick<AppContext, "config" | "signing">,
  activation: Activation,
  request: Pick<ActivateInput, "nonce" | "offline" | "ttl">,
): ActivationJson {
  const machine = toMachineJson(activation);
  const license = toLicenseJson(activation.license);
  const answer: ActivationJson = { machine, license, nonce: request.nonce ?? null };
  if (!request.offline) return answer;
  const file = issueLicenseFile(ctx, license, request.ttl, new Date(), machineBinding(license, machine));
  return { ...answer, license_file: file.text, license_file_expires_at: file.expiresAt.toISOString() };
}
