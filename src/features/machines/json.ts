import { t } from "elysia";
import type { Machine } from "../../db/schema/index.ts";

// A machine on the wire: the license API's camelCase (activate, heartbeat, validate,
// /api/v1/licenses/{id}/machines) and the dashboard's snake_case (/api/licenses/{id}/machines).

const Timestamp = t.String({ format: "date-time" });
const Detail = t.Union([t.String(), t.Null()]);

/** A machine as a query reads it: its row and whether it is alive now (alive.ts). */
export interface MachineRow {
  machine: Machine;
  alive: boolean;
}

export const MachineJson = t.Object({
  id: t.String({ format: "uuid" }),
  licenseId: t.String({ format: "uuid" }),
  fingerprint: t.String(),
  name: Detail,
  platform: Detail,
  hostname: Detail,
  createdAt: Timestamp,
  lastHeartbeatAt: Timestamp,
  alive: t.Boolean({ description: "false: it missed its heartbeats, and holds no seat" }),
});
export type MachineJson = typeof MachineJson.static;

export const toMachineJson = ({ machine, alive }: MachineRow): MachineJson => ({
  id: machine.id,
  licenseId: machine.licenseId,
  fingerprint: machine.fingerprint,
  name: machine.name,
  platform: machine.platform,
  hostname: machine.hostname,
  createdAt: machine.createdAt.toISOString(),
  lastHeartbeatAt: machine.lastHeartbeatAt.toISOString(),
  alive,
});

export const MachineListJson = t.Object({ machines: t.Array(MachineJson) });

export const toMachineListJson = (rows: MachineRow[]): typeof MachineListJson.static => ({
  machines: rows.map(toMachineJson),
});

export const DashboardMachineJson = t.Object({
  id: t.String({ format: "uuid" }),
  fingerprint: t.String(),
  name: Detail,
  platform: Detail,
  hostname: Detail,
  created_at: Timestamp,
  last_seen_at: Timestamp,
  alive: t.Boolean(),
});
export type DashboardMachineJson = typeof DashboardMachineJson.static;

export const toDashboardMachineJson = ({ machine, alive }: MachineRow): DashboardMachineJson => ({
  id: machine.id,
  fingerprint: machine.fingerprint,
  name: machine.name,
  platform: machine.platform,
  hostname: machine.hostname,
  created_at: machine.createdAt.toISOString(),
  last_seen_at: machine.lastHeartbeatAt.toISOString(),
  alive,
});

export const DashboardMachinesJson = t.Object({ data: t.Array(DashboardMachineJson) });

export const toDashboardMachinesJson = (rows: MachineRow[]): typeof DashboardMachinesJson.static => ({
  data: rows.map(toDashboardMachineJson),
});

/** A heartbeat's answer: the machine, kept alive. */
export const MachineAnswerJson = t.Object({ machine: MachineJson });

export const toMachineAnswerJson = (row: MachineRow): typeof MachineAnswerJson.static => ({
  machine: toMachineJson(row),
});

/** A coded refusal (refusal.ts). */
export const MachineRefusalJson = t.Object({ code: t.String(), message: t.String() });

/** The coded refusals a route may answer, by status: each is a MachineRefusalJson. */
export function codedRefusals<S extends number>(...statuses: S[]) {
  const shapes = Object.fromEntries(statuses.map((status) => [status, MachineRefusalJson]));
  return shapes as Record<S, typeof MachineRefusalJson>;
}

/** The owner's offline exchange: the machine and its machine-bound license file. */
export const OfflineFileJson = t.Object({
  data: t.Object({
    machine: DashboardMachineJson,
    license_file: t.String({
      description: "the license file bound to the machine (a JWS between armour lines)",
    }),
    license_file_expires_at: t.String({ format: "date-time" }),
  }),
});

/** The exchange's answer from the machine and the offline activation's answer (which has its file). */
export const toOfflineFileJson = (
  row: MachineRow,
  file: { license_file?: string; license_file_expires_at?: string },
): typeof OfflineFileJson.static => ({
  data: {
    machine: toDashboardMachineJson(row),
    license_file: file.license_file ?? "",
    license_file_expires_at: file.license_file_expires_at ?? "",
  },
});
