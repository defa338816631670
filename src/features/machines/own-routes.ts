import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { answers, noContent, refusals } from "../../http/schemas.ts";
import { UuidParam } from "../../validation/ids.ts";
import { bearerAuth } from "../auth/guards.ts";
import { exchangeOfflineRequest } from "./activation-answer.ts";
import {
  DashboardMachinesJson,
  MachineFileValidJson,
  OfflineFileJson,
  ownCodedRefusals,
  toDashboardMachinesJson,
} from "./json.ts";
import { OfflineExchangeBody } from "./offline.ts";
import { deactivateOwnMachine, listOwnMachines } from "./service.ts";

const LicenseParams = t.Object({ id: UuidParam("License") });

/** An operation on the owner's machines: any credential of theirs, and 404 for a license not theirs. */
const ownApi = <R extends Parameters<typeof answers>[1]>(
  detail: Parameters<typeof answers>[0],
  success: R,
) => ({
  auth: true as const,
  ...answers(detail, success, 404),
});

/** The license owner's machines (the dashboard's license card), by any credential of theirs. */
export const ownMachineRoutes = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/licenses/:id/machines", tags: ["Machines"] })
    .use(bearerAuth(ctx))
    .get(
      "",
      async ({ params, actor }) => toDashboardMachinesJson(await listOwnMachines(ctx, actor, params.id)),
      {
        ...ownApi("Your license's machines, oldest first, alive or not", { 200: DashboardMachinesJson }),
        params: LicenseParams,
      },
    )
    .delete("/:machine", ({ params, actor }) => noContent(deactivateOwnMachine(ctx, actor, params)), {
      ...ownApi(
        {
          summary: "Deactivate one of your license's machines, freeing its seat",
          description:
            "A machine whose license file is still valid keeps its seat until the file expires: 409 " +
            "MACHINE_FILE_VALID with `fileExpiresAt`.",
        },
        { 409: MachineFileValidJson },
      ),
      params: t.Object({ id: UuidParam("License"), machine: UuidParam("Machine") }),
    })
    .post(
      "/offline",
      ({ params, body, actor }) => exchangeOfflineRequest(ctx, actor, params.id, body.request),
      {
        ...ownApi(
          {
            summary: "Exchange an air-gapped machine's activation request for its license file",
            description:
              "The request (base64 of {v: 1, key, fingerprint, name?, platform?, hostname?}) must carry this " +
              "license's key. The machine is activated like any other (201 new, 200 already active; 409, 429 " +
              "with a code) and the answer carries its machine-bound license file.",
          },
          {
            200: OfflineFileJson,
            201: OfflineFileJson,
            ...refusals(422),
            ...ownCodedRefusals(403, 409, 429),
          },
        ),
        params: LicenseParams,
        body: OfflineExchangeBody,
      },
    );
