import { t } from "elysia";
import type { Machine } from "../../db/schema/index.ts";
import type { LicenseFile } from "../licenses/files.ts";

// A machine on the wire: the license API's camelCase (activate, heartbeat, validate,
// /api/v1/licenses/{id}/machines) and the dashboard's snake_case (/api/licenses/{id}/machines).

const Timestamp = t.String({ format: "date-time" });
const Detail = t.Union([t.String(), t.Null()]);
const FileExpiry = t.Union([Timestamp, t.Null()], {
  description:
    "when the latest license file issued for it expires (null: none); until then it holds its seat, alive or not",
});

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
  alive: t.Boolean({
    description: "false: it missed its heartbeats, and holds no seat unless its license file is still valid",
  }),
  fileExpiresAt: FileExpiry,
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
  fileExpiresAt: machine.fileExpiresAt?.toISOString() ?? null,
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
  file_expires_at: FileExpiry,
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
  file_expires_at: machine.fileExpiresAt?.toISOString() ?? null,
});

export const DashboardMachinesJson = t.Object({ data: t.Array(DashboardMachineJson) });

export const toDashboardMachinesJson = (rows: MachineRow[]): typeof DashboardMachinesJson.static => ({
  data: rows.map(toDashboardMachineJson),
});

/** A product's license's machines for its vendor, with how long an offline activation's file may last. */
export const ProductMachinesJson = t.Object({
  data: t.Array(DashboardMachineJson),
  license_file_ttl_max: t.Integer({
    description:
      "the longest a license file of this license lasts, in seconds: its ceiling (the license's " +
      "machine_file_ttl_max, else its product's, else a week with max_machines), at most a year",
  }),
});

export const toProductMachinesJson = ({
  rows,
  fileTtlMax,
}: {
  rows: MachineRow[];
  fileTtlMax: number;
}): typeof ProductMachinesJson.static => ({
  data: rows.map(toDashboardMachineJson),
  license_file_ttl_max: fileTtlMax,
});

const Nonce = t.Union([t.String(), t.Null()], {
  description: "the request's nonce, echoed (null: none sent)",
});

/** A heartbeat's answer: the machine, kept alive, and the request's nonce. */
export const MachineAnswerJson = t.Object({ machine: MachineJson, nonce: Nonce });

export const toMachineAnswerJson = (
  row: MachineRow,
  nonce: string | undefined,
): typeof MachineAnswerJson.static => ({
  machine: toMachineJson(row),
  nonce: nonce ?? null,
});

/** A coded refusal of activate or heartbeat (refusal.ts): it echoes the request's nonce. */
export const MachineRefusalJson = t.Object({ code: t.String(), message: t.String(), nonce: Nonce });

/** A coded refusal of a route that takes no nonce (the owner's offline exchange). */
export const CodedRefusalJson = t.Object({ code: t.String(), message: t.String() });

/** 409 MACHINE_FILE_VALID: the machine holds its seat until its license file expires (seats.ts). */
export const MachineFileValidJson = t.Object({
  code: t.Literal("MACHINE_FILE_VALID"),
  message: t.String(),
  fileExpiresAt: Timestamp,
});

/** The coded refusals of activate or heartbeat, by status: each is a MachineRefusalJson. */
export const codedRefusals = <S extends number>(...statuses: S[]) => refusalsOf(MachineRefusalJson, statuses);

/** The coded refusals of a route that takes no nonce, by status: each is a CodedRefusalJson. */
export const ownCodedRefusals = <S extends number>(...statuses: S[]) =>
  refusalsOf(CodedRefusalJson, statuses);

function refusalsOf<S extends number, T>(shape: T, statuses: S[]) {
  return Object.fromEntries(statuses.map((status) => [status, shape])) as Record<S, T>;
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

/** The exchange's answer: the machine the offline activation made, and its file. */
export const toOfflineFileJson = (
  activation: MachineRow & { file: LicenseFile | null },
): typeof OfflineFileJson.static => ({
  data: {
    machine: toDashboardMachineJson(activation),
    license_file: activation.file?.text ?? "",
    license_file_expires_at: activation.file?.expiresAt.toISOString() ?? "",
  },
});
