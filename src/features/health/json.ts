import { t } from "elysia";

const Checks = t.Record(t.String(), t.String(), {
  description: '"ok" or why not, per check: database, migrations, storage, and jobs where the runner runs',
  examples: [{ database: "ok", migrations: "ok", storage: "ok", jobs: "ok" }],
});

/** Liveness: the database answers. */
export const LiveJson = t.Object({ status: t.String({ examples: ["ok"] }) });
/** Readiness, and what it is not ready for. */
export const ReadyJson = t.Object({ status: t.Literal("ready"), checks: Checks });
export const NotReadyJson = t.Object({ message: t.String({ examples: ["Not ready."] }), checks: Checks });
