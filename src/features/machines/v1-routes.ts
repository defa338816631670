import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { refusals } from "../../http/schemas.ts";
import { UuidParam } from "../../validation/ids.ts";
import { apiKeyAuth } from "../auth/guards.ts";
import { MachineListJson, toMachineJson } from "./json.ts";
import { listMachines } from "./service.ts";

/** A license's machines in the license API (x-api-key), beside /api/v1/licenses/{id}/ips. */
export const v1MachineRoutes = (ctx: AppContext) =>
  new Elysia().use(apiKeyAuth(ctx)).get(
    "/api/v1/licenses/:id/machines",
    async ({ params, apiKey }) => ({
      machines: (await listMachines(ctx, apiKey, params.id)).map(toMachineJson),
    }),
    {
      apiKey: true,
      params: t.Object({ id: UuidParam("License") }),
      response: { 200: MachineListJson, ...refusals(403, 404, 422) },
      detail: { summary: "A license's machines, oldest first, alive or not", tags: ["Machines"] },
    },
  );
