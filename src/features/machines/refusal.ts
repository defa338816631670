import { AppError } from "../../errors.ts";

/**
 * A refusal of the machine API that a client acts on by its code as well as its status (a full
 * license, a dead machine): `{"code":"TOO_MANY_MACHINES","message":"…"}`.
 */
export class MachineRefused extends AppError {
  constructor(
    status: number,
    readonly code: string,
    message: string,
    headers: Record<string, string> = {},
  ) {
    super(status, message, headers);
  }

  override body() {
    return { code: this.code, message: this.message };
  }
}
