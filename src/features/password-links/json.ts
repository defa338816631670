import { t } from "elysia";
import type { User } from "../../db/schema/index.ts";
import type { PasswordLink } from "./service.ts";

export const PasswordLinkJson = t.Object({
  url: t.String(),
  expires_at: t.String({ format: "date-time" }),
  emailed: t.Boolean({ description: "queued for e-mailing to the user (SMTP_URL is set)" }),
});

export const PasswordLinkInfoJson = t.Object({
  email: t.String(),
  expires_at: t.String({ format: "date-time" }),
});

/** A link just issued, as the admin gets it: `{ data: PasswordLinkJson }`. */
export const toLinkData = ({ url, expiresAt, emailed }: PasswordLink) => ({
  data: { url, expires_at: expiresAt.toISOString(), emailed },
});

/** Whom a link is for, as its page gets it: `{ data: PasswordLinkInfoJson }`. */
export const toLinkInfoData = ({ user, expiresAt }: { user: User; expiresAt: Date }) => ({
  data: { email: user.email, expires_at: expiresAt.toISOString() },
});

export const ForgotPasswordJson = t.Object({
  by_email: t.Boolean({
    description:
      "true: a link is on its way if the address has an account (SMTP_URL is set); false: depot sends no e-mail, an admin makes the link",
  }),
});

export const toForgotPasswordData = (byEmail: boolean) => ({ data: { by_email: byEmail } });
