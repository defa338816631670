import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { refusals } from "../../http/schemas.ts";
import { UuidParam } from "../../validation/ids.ts";
import { bearerAuth } from "../auth/guards.ts";
import { activationAnswer } from "./activation-answer.ts";
import {
  DashboardMachinesJson,
  MachineRefusalJson,
  OfflineFileJson,
  toDashboardMachineJson,
} from "./json.ts";
import { decodeOfflineRequest, OfflineExchangeBody } from "./offline.ts";
import { activateOwnOffline, deactivateOwnMachine, listOwnMachines } from "./service.ts";

const tags = ["Machines"];

/** The license owner's machines (the dashboard's license card), by any credential of theirs. */
export const ownMachineRoutes = (ctx: AppContext) =>
  new Elysia()
    .use(bearerAuth(ctx))
    .get(
      "/api/licenses/:id/machines",
      async ({ params, actor }) => ({
        data: (await listOwnMachines(ctx, actor, params.id)).map(toDashboardMachineJson),
      }),
      {
        auth: true,
        params: t.Object({ id: UuidParam("License") }),
        response: { 200: DashboardMachinesJson, ...refusals(404) },
        detail: { summary: "Your license's machines, oldest first, alive or not", tags },
      },
    )
    .delete(
      "/api/licenses/:id/machines/:machine",
      async ({ params, actor, set }) => {
        await deactivateOwnMachine(ctx, actor, params.id, params.machine);
        set.status = 204;
      },
      {
        auth: true,
        params: t.Object({ id: UuidParam("License"), machine: UuidParam("Machine") }),
        response: refusals(404),
        detail: { summary: "Deactivate one of your license's machines, freeing its seat", tags },
      },
    )
    .post(
      "/api/licenses/:id/machines/offline",
      async ({ params, body, actor, status }) => {
        const request = decodeOfflineRequest(body.request);
        const activation = await activateOwnOffline(ctx, actor, params.id, request);
        const file = activationAnswer(ctx, activation, { offline: true });
        const data = {
          machine: toDashboardMachineJson(activation),
          license_file: file.license_file ?? "",
          license_file_expires_at: file.license_file_expires_at ?? "",
        };
        return activation.created ? status(201, { data }) : { data };
      },
      {
        auth: true,
        params: t.Object({ id: UuidParam("License") }),
        body: OfflineExchangeBody,
        response: {
          200: OfflineFileJson,
          201: OfflineFileJson,
          ...refusals(404, 422),
          403: MachineRefusalJson,
          409: MachineRefusalJson,
          429: MachineRefusalJson,
        },
        detail: {
          summary: "Exchange an air-gapped machine's activation request for its license file",
          description:
            "The request (base64 of {v: 1, key, fingerprint, name?, platform?, hostname?}) must carry this " +
            "license's key. The machine is activated like any other (201 new, 200 already active; 409, 429 " +
            "with a code) and the answer carries its machine-bound license file.",
          tags,
        },
      },
    );
