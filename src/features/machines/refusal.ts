import { AppError } from "../../errors.ts";

/**
 * A refusal of the machine API that a client acts on by its code as well as its status (a full
 * license, a dead machine): `{"code":"TOO_MANY_MACHINES","message":"…"}`, plus what the refusal is
 * about (`details`, e.g. a file's expiry) and, on the routes that take one, the request's nonce.
 */
export class MachineRefused extends AppError {
  constructor(
    status: number,
    readonly code: string,
    message: string,
    headers: Record<string, string> = {},
    readonly details: Record<string, unknown> = {},
    /** The request's nonce (null: none sent); undefined on routes that take none. */
    readonly nonce?: string | null,
  ) {
    super(status, message, headers);
  }

  override body() {
    return {
      code: this.code,
      message: this.message,
      ...(this.nonce === undefined ? {} : { nonce: this.nonce }),
      ...this.details,
    };
  }

  /** The same refusal, echoing the request's nonce. */
  echoing(nonce: string | null): MachineRefused {
    return new MachineRefused(this.status, this.code, this.message, this.headers, this.details, nonce);
  }
}

/**
 * Runs the work of a route that takes a nonce (activate, heartbeat): its coded refusals echo the
 * nonce (null when none was sent) as its answers do, so a client can tell a refusal given to this
 * request from one recorded earlier and replayed.
 */
export async function echoingNonce<T>(nonce: string | undefined, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof MachineRefused) throw error.echoing(nonce ?? null);
    throw error;
  }
}

/** A machine of the license that is not there (any more), or one the caller may not see. */
export const machineNotFound = () => new MachineRefused(404, "NOT_FOUND", "Machine not found.");
