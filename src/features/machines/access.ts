import type { AppContext } from "../../context.ts";
import { Unauthenticated } from "../../errors.ts";
import { requireApiKey } from "../auth/guards.ts";
import type { MachineCaller } from "./service.ts";

// Who calls a machine's key routes (heartbeat, deactivate): the credential read from the request's
// headers, as updates/access.ts reads a feed's.

const LICENSE_AUTHORIZATION = /^License +(\S+)$/i;

/** The license key of `Authorization: License <key>`; without one, a 401 that names the scheme. */
export function licenseKeyIn(request: Request): string {
  const match = LICENSE_AUTHORIZATION.exec(request.headers.get("authorization")?.trim() ?? "");
  if (!match?.[1]) throw new Unauthenticated("Unauthenticated.", "License");
  return match[1];
}

/** A deactivation's caller: the software with its license key, else an API key for the license. */
export async function machineCaller(ctx: AppContext, request: Request): Promise<MachineCaller> {
  const headerKey = request.headers.get("x-api-key");
  if (request.headers.has("authorization") || headerKey === null)
    return { licenseKey: licenseKeyIn(request) };
  return { apiKey: await requireApiKey(ctx, request, headerKey) };
}
