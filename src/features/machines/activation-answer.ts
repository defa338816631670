import { status } from "elysia";
import type { AppContext } from "../../context.ts";
import type { Actor } from "../auth/actor.ts";
import { type ActivationJson, toLicenseJson } from "../licenses/json.ts";
import { toMachineJson, toOfflineFileJson } from "./json.ts";
import { decodeOfflineRequest } from "./offline.ts";
import { echoingNonce } from "./refusal.ts";
import type { ActivateInput } from "./schemas.ts";
import { type Activation, activateMachine, activateOwnOffline } from "./service.ts";

/**
 * An activation's answer: the machine, its license and the nonce; for an offline activation also the
 * license file bound to the machine (its claims carry the fingerprint), which the air-gapped machine
 * verifies with the published keys.
 */
export function activationAnswer(activation: Activation, nonce: string | undefined): ActivationJson {
  const answer: ActivationJson = {
    machine: toMachineJson(activation),
    license: toLicenseJson(activation.license),
    nonce: nonce ?? null,
  };
  if (!activation.file) return answer;
  return {
    ...answer,
    license_file: activation.file.text,
    license_file_expires_at: activation.file.expiresAt.toISOString(),
  };
}

/**
 * An activation's status: 201 for a machine activated now, 200 for a fingerprint already active
 * (Elysia's `status`, the one a handler is given).
 */
const withActivationStatus = <T>(activation: Activation, answer: T) =>
  activation.created ? status(201, answer) : answer;

/**
 * POST /api/v1/licenses/activate: activates the machine the body names, and answers it (201 or 200);
 * its coded refusals echo the nonce as well.
 */
export function activateAndAnswer(
  ctx: Pick<AppContext, "db" | "config" | "signing" | "usage">,
  body: ActivateInput,
) {
  return echoingNonce(body.nonce, async () => {
    const activation = await activateMachine(ctx, body);
    return withActivationStatus(activation, activationAnswer(activation, body.nonce));
  });
}

/**
 * The owner's offline exchange: the air-gapped machine's request (base64) decoded, the machine
 * activated from it like any other, and its machine-bound license file.
 */
export async function exchangeOfflineRequest(
  ctx: Pick<AppContext, "db" | "config" | "signing" | "usage">,
  actor: Actor,
  licenseId: string,
  encoded: string,
) {
  return offlineFileAnswer(await activateOwnOffline(ctx, actor, licenseId, decodeOfflineRequest(encoded)));
}

/** A dashboard's offline activation answered: the machine and its file, 201 when the machine is new. */
export const offlineFileAnswer = (activation: Activation) =>
  withActivationStatus(activation, toOfflineFileJson(activation));
