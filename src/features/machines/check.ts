import { and, eq, or, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/client.ts";
import { preparedOnce } from "../../db/prepared.ts";
import { type License, machines } from "../../db/schema/index.ts";
import { aliveSql } from "./alive.ts";
import type { MachineRow } from "./json.ts";
import { holdsSeatSql } from "./seats.ts";

/** What a validation learns of a license's machines: how many seats are held, and the asking one's. */
export interface MachineCheck {
  /** Seats held: alive machines, and machines whose license file is still valid (seats.ts). */
  count: number;
  /** The machine with the fingerprint given (alive or not); null if none, or none was given. */
  machine: MachineRow | null;
}

/**
 * One read: the license's machines holding seats and the one with `fingerprint` (dead or alive),
 * alive computed now. Without a lock: a validation only reads, activations keep the count within bounds.
 */
export async function checkMachine(
  ctx: Pick<AppContext, "db">,
  license: Pick<License, "id" | "heartbeatSeconds">,
  fingerprint: string | undefined,
): Promise<MachineCheck> {
  const rows = await preparedOnce(ctx.db, "machines_of_license", prepareMachinesOf).execute({
    licenseId: license.id,
    heartbeatSeconds: license.heartbeatSeconds,
    fingerprint: fingerprint ?? null,
  });
  const asked = rows.find((row) => row.machine.fingerprint === fingerprint);
  return {
    count: rows.filter((row) => row.holdsSeat).length,
    machine: asked ? { machine: asked.machine, alive: asked.alive } : null,
  };
}

/**
 * Prepared once, as validation's own read is (bench/README.md, "Machines"): the heartbeat interval
 * is a parameter (null: no heartbeats wanted), and a null fingerprint matches no machine.
 */
const prepareMachinesOf = (db: Db) => {
  const heartbeatSeconds = sql.placeholder("heartbeatSeconds");
  const alive = aliveSql(heartbeatSeconds);
  const holdsSeat = holdsSeatSql(heartbeatSeconds);
  return db
    .select({ machine: machines, alive, holdsSeat })
    .from(machines)
    .where(
      and(
        eq(machines.licenseId, sql.placeholder("licenseId")),
        or(holdsSeat, eq(machines.fingerprint, sql.placeholder("fingerprint"))),
      ),
    )
    .prepare("machines_of_license");
};
