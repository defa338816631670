import type { RunCommand } from "../control/socket.ts";
import { AppError } from "../errors.ts";
import type { Runtime } from "../runtime.ts";
import type { AdminAction } from "./admin-action.ts";
import { createApiKeyAction } from "./api-key-create.ts";
import { demoSeedAction } from "./demo-seed.ts";
import { listKeysAction, prepareKeyAction, rotateKeysAction } from "./keys.ts";
import { createProductAction } from "./product-create.ts";
import { setupLinkAction } from "./setup-link.ts";
import { createTokenAction } from "./token-create.ts";
import { createUserAction } from "./user-create.ts";
import { setPasswordAction } from "./user-password.ts";

/**
 * Every administrative command a running server performs for the CLI through its control socket.
 * Each takes its own input type; here they are only looked up by name and handed the JSON the CLI
 * sent (the same value it built), hence `never`.
 */
const ACTIONS: AdminAction<never, unknown>[] = [
  createUserAction,
  setPasswordAction,
  createTokenAction,
  createApiKeyAction,
  createProductAction,
  setupLinkAction,
  prepareKeyAction,
  rotateKeysAction,
  listKeysAction,
  demoSeedAction,
];

/** The control socket's `POST /command` for `depot serve` (control/socket.ts). */
export const runAdminCommand =
  (runtime: Runtime): RunCommand =>
  (name, input) => {
    const action = ACTIONS.find((candidate) => candidate.name === name);
    if (!action) throw new AppError(404, `depot serve does not run "${name}" (a newer depot CLI?)`);
    return action.perform(runtime, input as never);
  };
