import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { refusals } from "../../http/schemas.ts";
import { UuidParam } from "../../validation/ids.ts";
import { bearerAuth } from "../auth/guards.ts";
import { DashboardMachinesJson, toDashboardMachineJson } from "./json.ts";
import { deactivateOwnMachine, listOwnMachines } from "./service.ts";

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
    );
