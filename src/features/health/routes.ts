import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { AppError } from "../../errors.ts";

/** For orchestrators: 200 while the database answers, 503 while it does not; no auth. */
export const healthRoutes = (ctx: AppContext) =>
  new Elysia().get(
    "/api/health",
    async () => {
      try {
        await ctx.database.ping(2000);
      } catch {
        throw new AppError(503, "Database unavailable.");
      }
      return { status: "ok" };
    },
    {
      response: { 200: t.Object({ status: t.String({ examples: ["ok"] }) }) },
      detail: { summary: "Service health", tags: ["Health"] },
    },
  );
