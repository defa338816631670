import { Value } from "@sinclair/typebox/value";
import { t } from "elysia";
import { Invalid } from "../../errors.ts";
import { MachineFields } from "./schemas.ts";

/**
 * An offline activation request, as an air-gapped app writes it: this JSON object, UTF-8, in base64
 * (standard or URL-safe, padding optional) so that it can be copied, mailed or shown as a QR code.
 * README, "Offline activation", documents it for app authors.
 */
export const OfflineRequest = t.Object(
  { v: t.Literal(1), ...MachineFields },
  { additionalProperties: false },
);
export type OfflineRequest = typeof OfflineRequest.static;

/** A request is a few hundred bytes; anything near this is not one. */
const MAX_ENCODED = 4096;
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

export const OfflineExchangeBody = t.Object(
  {
    request: t.String({
      minLength: 1,
      maxLength: MAX_ENCODED,
      description:
        "the app's activation request: base64 of {v: 1, key, fingerprint, name?, platform?, hostname?}",
    }),
  },
  { additionalProperties: false },
);

/** The request inside `encoded`, or a 422 on `request` that says what is wrong with it. */
export function decodeOfflineRequest(encoded: string): OfflineRequest {
  const refuse = (why: string) => new Invalid({ request: [`The activation request ${why}`] });
  const compact = encoded.replace(/\s+/g, "");
  if (!BASE64.test(compact)) throw refuse("is not base64.");
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(compact, "base64").toString("utf8"));
  } catch {
    throw refuse("is not base64 of a JSON object.");
  }
  if (!Value.Check(OfflineRequest, value)) {
    const [first] = Value.Errors(OfflineRequest, value);
    const field = first?.path.split("/").filter(Boolean).join(".") || "request";
    throw refuse(`is not a depot activation request (${field} is missing or invalid).`);
  }
  return value;
}
