import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { answers, refusals } from "../../http/schemas.ts";
import { UuidParam } from "../../validation/ids.ts";
import { ActivationJson, SIGNED } from "../licenses/json.ts";
import { signedAnswers } from "../signing/signed-answers.ts";
import { licenseKeyIn, machineCaller } from "./access.ts";
import { activateAndAnswer } from "./activation-answer.ts";
import { codedRefusals, MachineAnswerJson, MachineFileValidJson, toMachineAnswerJson } from "./json.ts";
import { echoingNonce } from "./refusal.ts";
import { ActivateBody, DeactivateQuery, forceRequested, HeartbeatQuery } from "./schemas.ts";
import { deactivateMachine, heartbeat } from "./service.ts";

const MachineParams = t.Object({ id: UuidParam("Machine") });
/** Any segment: the service answers the coded 404 (with the nonce) for one that names no machine. */
const HeartbeatParams = t.Object({ id: t.String({ description: "Machine id (a uuid)" }) });

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
          "`code` and echo the `nonce` (null when none was sent): 404 NOT_FOUND, 403 REVOKED or EXPIRED, " +
          "409 TOO_MANY_MACHINES (maxMachines seats held: alive machines and machines whose license file is " +
          "still valid), 429 TOO_MANY_ACTIVATIONS with Retry-After (MACHINE_ACTIVATIONS_PER_DAY). With " +
          "`offline: true` the answer also carries the machine-bound license file, its `ttl` cut to the " +
          "license's machineFileTtlMax (`license_file_expires_at` says when it ends).",
        { 200: ActivationJson, 201: ActivationJson, ...refusals(422), ...codedRefusals(403, 404, 409, 429) },
      ),
    })
    .post(
      "/machines/:id/heartbeat",
      ({ params, query, request }) =>
        echoingNonce(query.nonce, async () =>
          toMachineAnswerJson(await heartbeat(ctx, params.id, licenseKeyIn(request)), query.nonce),
        ),
      {
        params: HeartbeatParams,
        query: HeartbeatQuery,
        ...signedApi(
          "A machine's heartbeat (Authorization: License <key>)",
          "Keeps the machine alive for another heartbeatSeconds (plus grace); the answer echoes `?nonce=` " +
            "(null when none was sent), as its coded refusals do. A machine that is not there, or another " +
            "license's: 404 NOT_FOUND. A machine that already died: 410 HEARTBEAT_DEAD (activate again).",
          { 200: MachineAnswerJson, ...refusals(401, 422), ...codedRefusals(403, 404, 410) },
        ),
      },
    )
    .delete(
      "/machines/:id",
      // Not noContent: signedAnswers would sign a Response as a refusal; the 204 goes out unsigned.
      async ({ params, query, request, set }) => {
        const force = forceRequested(query.force);
        await deactivateMachine(ctx, await machineCaller(ctx, request), params.id, force);
        set.status = 204;
      },
      {
        params: MachineParams,
        query: DeactivateQuery,
        ...signedApi(
          "Deactivate a machine (Authorization: License <key>, or an x-api-key for the license)",
          "Frees the machine's seat. A machine of another license is a 404. A machine whose license file is " +
            "still valid keeps its seat until the file expires: 409 MACHINE_FILE_VALID with `fileExpiresAt`, " +
            "unless an x-api-key sends `?force=true`, which frees the seat and revokes nothing (the file " +
            "keeps working offline until it expires). The 204 has no body to sign; refusals are signed.",
          { ...refusals(401, 404, 422), 409: MachineFileValidJson },
        ),
      },
    );
};
