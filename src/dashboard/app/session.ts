// The signed-in user, as the auth endpoints describe them (docs/reference/http-api.md, HTTP API).
import { ApiError, get, post, setCsrfToken } from "./api.ts";
import type { Session, User } from "./wire.ts";

interface SessionAnswer {
  data: Session;
}

/** The current session's user, or null when there is none (401, or no auth endpoint to ask). */
export async function currentUser(): Promise<User | null> {
  try {
    const answer = await get<SessionAnswer>("/api/auth/session", { quietUnauthorized: true });
    setCsrfToken(answer.data.csrf_token);
    return answer.data.user;
  } catch (error) {
    // Any refusal means "not signed in"; the sign-in page then reports what signing in answers.
    if (error instanceof ApiError) return null;
    throw error;
  }
}

export async function signIn(email: string, password: string): Promise<User> {
  const answer = await post<SessionAnswer>(
    "/api/auth/sign-in",
    { email, password },
    { quietUnauthorized: true },
  );
  setCsrfToken(answer.data.csrf_token);
  return answer.data.user;
}

export async function signOut(): Promise<void> {
  try {
    await post("/api/auth/sign-out", undefined, { quietUnauthorized: true });
  } catch (error) {
    // A session that already ended is signed out all the same.
    if (!(error instanceof ApiError && error.status === 401)) throw error;
  }
  setCsrfToken(null);
}

/** Whether the user's role grants `permission` (an admin's `*` grants everything). */
export const can = (user: User, permission: string): boolean =>
  user.role.permissions.includes("*") || user.role.permissions.includes(permission);

/** An admin: the role grants everything. */
export const isAdmin = (user: User): boolean => user.role.permissions.includes("*");

/** Sells and ships software: publishes versions, or manages products (the Sell and Ship pages). */
export const sells = (user: User): boolean => can(user, "versions.publish") || can(user, "products.manage");

/** Has some permission: a role with none (a customer) has no use for tokens of its own. */
export const hasPermissions = (user: User): boolean => user.role.permissions.length > 0;

/** Reads purchases beyond their own: a seller sees their products', `purchases.view` every one. */
export const seesPurchases = (user: User): boolean => sells(user) || can(user, "purchases.view");

/** Looks people up: admins, and roles with `users.view`. */
export const seesUsers = (user: User): boolean => can(user, "users.view");
