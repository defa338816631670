import { t } from "elysia";
import { defineQueue } from "../../jobs/registry.ts";
import { Int } from "../../validation/schemas.ts";
import { sendPasswordLinkEmail } from "./email.ts";

/**
 * The e-mail with a set-password link. The payload is the link's claims and the password state it was
 * issued for, never the token: the job is rebuilt into the same link when it runs, and a link already
 * used by then is not sent.
 */
export const passwordLinkEmail = defineQueue({
  name: "password-link.email",
  payload: t.Object({ user_id: Int(), expires: Int(), fingerprint: t.String() }),
  options: { retryLimit: 5, retryDelay: 60, retryBackoff: true },
  handle: (ctx, data) => sendPasswordLinkEmail(ctx, data),
});
