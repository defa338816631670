import { t } from "elysia";
import { defineQueue } from "../../jobs/registry.ts";
import { Int } from "../../validation/schemas.ts";
import { sendLicenseKeyEmail } from "./key-email.ts";

/**
 * The e-mail with a sold license's key (and, for a customer the sale created, a set-password link).
 * Like the password-link job it carries the link's claims, never a token, and no key either: the key
 * is read when the job runs.
 */
export const licenseKeyEmail = defineQueue({
  name: "license.key-email",
  payload: t.Object({
    license_id: t.String({ format: "uuid" }),
    link: t.Union([t.Object({ expires: Int(), fingerprint: t.String() }), t.Null()]),
  }),
  options: { retryLimit: 5, retryDelay: 60, retryBackoff: true },
  handle: (ctx, data) => sendLicenseKeyEmail(ctx, data),
});
