import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { answers, refusals } from "../../http/schemas.ts";
import { UuidParam } from "../../validation/ids.ts";
import { ActivationJson, SIGNED } from "../licenses/json.ts";
import { signedAnswers } from "../signing/signed-answers.ts";
import { licenseKeyIn, machineCaller } from "./access.ts";
import { activateAndAnswer } from "./activation-answer.ts";
import { codedRefusals, MachineAnswerJson, toMachineAnswerJson } from "./json.ts";
import { ActivateBody } from "./schemas.ts";
import { deactivateMachine, heartbeat } from "./service.ts";

const MachineParams = t.Object({ id: UuidParam("Machine") });

/**
 * The routes shipped software calls for its machine, the license key being the credential as for
 * validate: activate (key in the body), heartbeat and deactivate (`Authorization: License <key>`).
 * Every answer is signed.
 */
export const machineKeyRoutes = (ctx: AppContext) => {
  /** A machine route's entry: every answer signed, and its description saying so. */
  const signedApi = <R extends Parameters<typeof answers>[1]>(
    summary: string,
    description: string,
    success: R,
  ) => ({
    mapResponse: signedAnswers(ctx.signing),
    ...answers({ summary, description: description + SIGNED }, success),
  });

  return new Elysia({ prefix: "/api/v1", tags: ["Machines"] })
    .post("/licenses/activate", ({ body }) => activateAndAnswer(ctx, body), {
      body: ActivateBody,
      ...signedApi(
        "Activate a machine on a license (no API key needed; the key is the credential)",
        "201 for a new machine, 200 for a fingerprint already active on the license. Refusals carry a " +
          "`code`: 404 NOT_FOUND, 403 REVOKED or EXPIRED, 409 TOO_MANY_MACHINES (maxMachines alive machines), " +
          "429 TOO_MANY_ACTIVATIONS with Retry-After (MACHINE_ACTIVATIONS_PER_DAY). With `offline: true` the " +
          "answer also carries the machine-bound license file.",
        { 200: ActivationJson, 201: ActivationJson, ...refusals(422), ...codedRefusals(403, 404, 409, 429) },
      ),
    })
    .post(
      "/machines/:id/heartbeat",
      async ({ params, request }) =>
        toMachineAnswerJson(await heartbeat(ctx, params.id, licenseKeyIn(request))),
      {
        params: MachineParams,
        ...signedApi(
          "A machine's heartbeat (Authorization: License <key>)",
          "Keeps the machine alive for another heartbeatSeconds (plus grace). Another license's key: 404. " +
            "A machine that already died: 410 HEARTBEAT_DEAD (activate again).",
          { 200: MachineAnswerJson, ...refusals(401, 404), ...codedRefusals(403, 410) },
        ),
      },
    )
    .delete(
      "/machines/:id",
      // Not noContent: signedAnswers would sign a Response as a refusal; the 204 goes out unsigned.
      async ({ params, request, set }) => {
        await deactivateMachine(ctx, await machineCaller(ctx, request), params.id);
        set.status = 204;
      },
      {
        params: MachineParams,
        ...signedApi(
          "Deactivate a machine (Authorization: License <key>, or an x-api-key for the license)",
          "Frees the machine's seat. A machine of another license is a 404. The 204 has no body to sign; refusals are signed.",
          refusals(401, 404),
        ),
      },
    );
};
