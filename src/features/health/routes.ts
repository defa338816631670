import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { DatabaseUnavailable } from "../../errors.ts";
import { refusals } from "../../http/schemas.ts";
import { readiness } from "./readiness.ts";

/**
 * An orchestrator's probe gives up after about a second (Kubernetes' default timeoutSeconds is 1), and
 * a probe without an answer looks like a dead process: the answer comes before that, a 503 when the
 * database has not answered by then.
 */
const LIVENESS_TIMEOUT_MS = 800;

const Checks = t.Record(t.String(), t.String(), {
  description: '"ok" or why not, per check: database, migrations, storage, and jobs where the runner runs',
  examples: [{ database: "ok", migrations: "ok", storage: "ok", jobs: "ok" }],
});

/** For orchestrators: liveness (/api/health: the database answers) and readiness; no auth. */
export const healthRoutes = (ctx: AppContext) =>
  new Elysia()
    .get(
      "/api/health",
      async () => {
        try {
          await ctx.database.ping(LIVENESS_TIMEOUT_MS);
        } catch {
          throw new DatabaseUnavailable();
        }
        return { status: "ok" };
      },
      {
        response: { 200: t.Object({ status: t.String({ examples: ["ok"] }) }), ...refusals(503) },
        detail: { summary: "Service health", tags: ["Health"] },
      },
    )
    .get(
      "/api/health/ready",
      async ({ set }) => {
        const { ready, checks } = await readiness(ctx);
        if (ready) return { status: "ready", checks };
        set.status = 503;
        return { message: "Not ready.", checks };
      },
      {
        response: {
          200: t.Object({ status: t.Literal("ready"), checks: Checks }),
          503: t.Object({ message: t.String({ examples: ["Not ready."] }), checks: Checks }),
        },
        detail: {
          summary:
            "Readiness: 200 only when the database, migrations, release store and job runner are usable",
          tags: ["Health"],
        },
      },
    );
