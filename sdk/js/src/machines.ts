import { type Core, notAnAnswer } from "./core.js";
import { toBase64, utf8 } from "./encoding.js";
import { RefusedError } from "./errors.js";
import { checkLicense, checkMachine, sameId } from "./subject.js";
import type { Activation, License, Machine } from "./types.js";

/** What a customer recognises a machine by, in depot's dashboard. */
export interface MachineDetails {
  /** e.g. "Ada's laptop" */
  name?: string;
  /** e.g. windows-x64, macos-arm64, linux-x64 */
  platform?: string;
  hostname?: string;
}

export interface HeartbeatOptions {
  /** Seconds between heartbeats (the first goes at once). Default 60: keep it under half the license's heartbeatSeconds. */
  intervalSeconds?: number;
  /** Called with each failed heartbeat's error. A RefusedError (HEARTBEAT_DEAD: activate again) also stops the heartbeats. */
  onError?: (error: unknown) => void;
}

/** A running startHeartbeat. */
export interface HeartbeatHandle {
  stop(): void;
  readonly stopped: boolean;
}

const licenseHeader = (key: string) => ({ authorization: `License ${key}` });
const machinePath = (machineId: string) => `/api/v1/machines/${encodeURIComponent(machineId)}`;

/** POST /api/v1/licenses/activate: the machine, activated now (201) or already (200). */
export async function activate(
  core: Core,
  key: string,
  fingerprint: string,
  details: MachineDetails,
): Promise<Activation> {
  const exchange = await core.ask("/api/v1/licenses/activate", (nonce) => ({
    method: "POST",
    body: JSON.stringify({ key, fingerprint, ...machineDetails(details), nonce }),
  }));
  const { status, body, created } = exchange.answer;
  if (status !== 200 && status !== 201) throw core.refusal(exchange);
  if (typeof body.license !== "object" || body.license === null) throw notAnAnswer("an activation");
  // The key only: the product is checked below, as a refusal (activation names no product).
  checkLicense(body.license, key, core.settings.productId, "REVOKED");
  checkMachine(body.machine, { fingerprint });
  const license = body.license as License;
  // Activation takes no product: a key of another product activates on its own license. That answer
  // is depot's, about this key, so it is a refusal rather than a forgery (the seat is taken, though).
  if (!sameId(license.productId, core.settings.productId)) {
    throw new RefusedError("PRODUCT_MISMATCH", "This license is for another product.", status);
  }
  return {
    machine: body.machine as Machine,
    license,
    created: status === 201,
    signedAt: new Date(created * 1000),
  };
}

/** POST /api/v1/machines/{id}/heartbeat: the machine, kept alive. */
export async function heartbeat(core: Core, key: string, machineId: string): Promise<Machine> {
  const exchange = await core.ask(`${machinePath(machineId)}/heartbeat`, (nonce) => ({
    method: "POST",
    headers: licenseHeader(key),
    query: `?nonce=${encodeURIComponent(nonce)}`,
  }));
  if (exchange.answer.status !== 200) throw core.refusal(exchange);
  checkMachine(exchange.answer.body.machine, { id: machineId });
  return exchange.answer.body.machine as Machine;
}

/** DELETE /api/v1/machines/{id}: the seat freed. The 204 has no body to sign; refusals are signed. */
export async function deactivate(core: Core, key: string, machineId: string): Promise<void> {
  // No nonce: depot takes none on this route (a 422), so a refusal cannot echo one.
  const { raw, nonce } = await core.send(machinePath(machineId), () => ({
    method: "DELETE",
    headers: licenseHeader(key),
  }));
  // Unsigned, so anyone could say it; it only ever says a seat was freed.
  if (raw.status === 204) return;
  const answer = await core.verify(raw, nonce, core.settings.maxClockSkewSeconds);
  if (answer.status < 200 || answer.status >= 300) throw core.refusal({ answer, raw, nonce });
}

/** Heartbeats at once, then on a timer until stopped, or until depot refuses one. */
export function startHeartbeat(
  beat: () => Promise<unknown>,
  intervalSeconds: number,
  onError: ((error: unknown) => void) | undefined,
): HeartbeatHandle {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const stop = () => {
    stopped = true;
    clearTimeout(timer);
  };
  const schedule = (delaySeconds: number) => {
    timer = setTimeout(async () => {
      try {
        await beat();
      } catch (error) {
        // A refusal does not go away by asking again (a dead machine must be activated again).
        if (error instanceof RefusedError) stop();
        onError?.(error);
      }
      if (!stopped) schedule(intervalSeconds);
    }, delaySeconds * 1000);
    // The heartbeats alone do not keep a process running.
    (timer as { unref?: () => void }).unref?.();
  };
  // The first at once: a lease that died while the app was closed is known now, not later.
  schedule(0);
  return {
    stop,
    get stopped() {
      return stopped;
    },
  };
}

/**
 * The activation request an air-gapped machine writes (docs/vendors.md, "Offline activation"):
 * `{"v":1,"key","fingerprint","name","platform","hostname"}` without absent fields, UTF-8, base64.
 */
export function offlineActivationRequest(key: string, fingerprint: string, details: MachineDetails): string {
  return toBase64(utf8(JSON.stringify({ v: 1, key, fingerprint, ...machineDetails(details) })));
}

/** Only the three fields depot takes (it refuses a body with any other). */
function machineDetails(details: MachineDetails): MachineDetails {
  const picked: MachineDetails = {};
  for (const field of ["name", "platform", "hostname"] as const) {
    if (details[field] !== undefined) picked[field] = details[field];
  }
  return picked;
}
