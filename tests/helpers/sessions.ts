import type { AppContext } from "../../src/context.ts";
import { hashPassword } from "../../src/features/auth/passwords.ts";
import { setPassword } from "../../src/features/users/service.ts";
import { readJson } from "./app.ts";
import { createUser } from "./factories.ts";

/** A user who can sign in to the dashboard with `password`. */
export async function userWithPassword(
  ctx: Pick<AppContext, "db">,
  password: string,
  overrides: { role?: string; name?: string; email?: string } = {},
) {
  const user = await createUser(ctx, overrides);
  await setPassword(ctx, user.email, await hashPassword(password));
  return user;
}

/** `depot_session=…` from a Set-Cookie header, as a browser would send it back in Cookie. */
export function sessionCookieOf(response: Response): string {
  const header = response.headers.get("set-cookie") ?? "";
  const pair = header.split(";")[0] ?? "";
  if (!pair.startsWith("depot_session=")) throw new Error(`no session cookie in "${header}"`);
  return pair;
}

/** Signs in through the listening server at `base`; `headers` adds to the JSON request (X-Forwarded-For…). */
export async function signIn(
  base: string,
  email: string,
  password: string,
  headers: Record<string, string> = {},
): Promise<{ response: Response; cookie: string; csrf: string }> {
  const response = await fetch(`${base}/api/auth/sign-in`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ email, password }),
  });
  if (response.status !== 200)
    throw new Error(`sign-in answered ${response.status}: ${await response.text()}`);
  const body = await readJson(response);
  return { response, cookie: sessionCookieOf(response), csrf: body.data.csrf_token };
}

/** The headers of a dashboard page's own request: the session cookie, its CSRF token, same-origin. */
export const sessionHeaders = (session: { cookie: string; csrf: string }): Record<string, string> => ({
  cookie: session.cookie,
  "x-csrf-token": session.csrf,
  "sec-fetch-site": "same-origin",
});
