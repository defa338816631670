import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { answers } from "../../http/schemas.ts";
import { UuidParam } from "../../validation/ids.ts";
import { apiKeyAuth } from "../auth/guards.ts";
import { MachineListJson, toMachineListJson } from "./json.ts";
import { listMachines } from "./service.ts";

/** A license's machines in the license API (x-api-key), beside /api/v1/licenses/{id}/ips. */
export const v1MachineRoutes = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/v1/licenses/:id/machines", tags: ["Machines"] })
    .use(apiKeyAuth(ctx))
    .get("", async ({ params, apiKey }) => toMachineListJson(await listMachines(ctx, apiKey, params.id)), {
      apiKey: true,
      params: t.Object({ id: UuidParam("License") }),
      ...answers("A license's machines, oldest first, alive or not", { 200: MachineListJson }, 403, 404, 422),
    });
