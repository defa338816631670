// First run (README, Quick start): whether the first admin is still to be created, and creating them.
import { ApiError, get, post, setCsrfToken } from "./api.ts";
import type { Session, SetupFields, User } from "./wire.ts";

/** True while no user exists; false once any does (depot answers 404 then). */
export async function setupRequired(): Promise<boolean> {
  try {
    await get("/api/setup", { quietUnauthorized: true });
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return false;
    throw error;
  }
}

/** Creates the first admin with the setup code; depot signs them in (the session cookie). */
export async function createFirstAdmin(fields: SetupFields): Promise<User> {
  const answer = await post<{ data: Session }>("/api/setup", fields, { quietUnauthorized: true });
  setCsrfToken(answer.data.csrf_token);
  return answer.data.user;
}
