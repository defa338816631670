import { and, eq, or, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/client.ts";
import { preparedOnce } from "../../db/prepared.ts";
import { type License, machines } from "../../db/schema/index.ts";
import { aliveSql } from "./alive.ts";
import type { MachineRow } from "./json.ts";

/** What a validation learns of a license's machines: how many are alive, and the asking one's. */
export interface MachineCheck {
  count: number;
  /** The machine with the fingerprint given (alive or not); null if none, or none was given. */
  machine: MachineRow | null;
}

/**
 * One read: the license's alive machines and the one with `fingerprint` (dead or alive), alive
 * computed now. Without a lock: a validation only reads, activations keep the count within bounds.
 */
export async function checkMachine(
  ctx: Pick<AppContext, "db">,
  license: Pick<License, "id" | "heartbeatSeconds">,
  fingerprint: string | undefined,
): Promise<MachineCheck> {
  const rows: MachineRow[] = await preparedOnce(ctx.db, "machines_of_license", prepareMachinesOf).execute({
    licenseId: license.id,
    heartbeatSeconds: license.heartbeatSeconds,
    fingerprint: fingerprint ?? null,
  });
  return {
    count: rows.filter((row) => row.alive).length,
    machine: rows.find((row) => row.machine.fingerprint === fingerprint) ?? null,
  };
}

/**
 * Prepared once, as validation's own read is (bench/README.md, "Machines"): the heartbeat interval
 * is a parameter (null: no heartbeats wanted), and a null fingerprint matches no machine.
 */
const prepareMachinesOf = (db: Db) => {
  const alive = aliveSql(sql.placeholder("heartbeatSeconds"));
  return db
    .select({ machine: machines, alive })
    .from(machines)
    .where(
      and(
        eq(machines.licenseId, sql.placeholder("licenseId")),
        or(alive, eq(machines.fingerprint, sql.placeholder("fingerprint"))),
      ),
    )
    .prepare("machines_of_license");
};
