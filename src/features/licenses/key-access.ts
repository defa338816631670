import type { AppContext } from "../../context.ts";
import { AppError, Invalid } from "../../errors.ts";
import { requestState } from "../../http/request-state.ts";
import type { ApiKeyActor } from "../auth/actor.ts";
import { requireApiKey } from "../auth/guards.ts";
import { namedAddress } from "./schemas.ts";

// What a license key route's request says besides the key in its body: the address a validation is
// for, and the x-api-key that may vouch for it (read from the request, as updates/access.ts reads a feed's).

/**
 * The address a validation is for. The caller's own, unless the body names one: that is honoured only
 * with an `x-api-key` that may act for the license, or anyone could claim a registered address.
 */
export async function addressToCheck(
  ctx: AppContext,
  request: Request,
  bodyIp: string | undefined,
): Promise<{ address: string; vouchingKey: ApiKeyActor | null }> {
  if (bodyIp === undefined) {
    const address = requestState(request).ip;
    if (address === null) throw new AppError(400, "The client address could not be determined.");
    return { address, vouchingKey: null };
  }
  const headerKey = request.headers.get("x-api-key");
  if (headerKey === null) throw new Invalid({ ip: ["The ip field is only accepted with an x-api-key."] });
  return { address: namedAddress(bodyIp), vouchingKey: await requireApiKey(ctx, request, headerKey) };
}
