// Set-password links (docs/reference/http-api.md, Dashboard sign-in and sessions): whom a link is for, and using it.
import { get, post } from "./api.ts";
import type { PasswordLinkInfo } from "./wire.ts";

/** Whom the link is for; an ApiError (422) when it is invalid, expired or used. */
export async function readPasswordLink(token: string): Promise<PasswordLinkInfo> {
  const answer = await get<{ data: PasswordLinkInfo }>(
    `/api/auth/password-link?token=${encodeURIComponent(token)}`,
    {
      quietUnauthorized: true,
    },
  );
  return answer.data;
}

export async function setPasswordWithLink(token: string, password: string): Promise<void> {
  await post("/api/auth/set-password", { token, password }, { quietUnauthorized: true });
}
