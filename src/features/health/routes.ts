import { Elysia } from "elysia";
import type { AppContext } from "../../context.ts";
import { answers } from "../../http/schemas.ts";
import { LiveJson, NotReadyJson, ReadyJson } from "./json.ts";
import { liveness, readinessAnswer } from "./readiness.ts";

/** For orchestrators: liveness (/api/health: the database answers) and readiness; no auth. */
export const healthRoutes = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/health", tags: ["Health"] })
    .get("", () => liveness(ctx), { ...answers("Service health", { 200: LiveJson }, 503) })
    .get("/ready", ({ set }) => readinessAnswer(ctx, set), {
      ...answers(
        "Readiness: 200 only when the database, migrations, release store and job runner are usable",
        { 200: ReadyJson, 503: NotReadyJson },
      ),
    });
