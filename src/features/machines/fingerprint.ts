import { t } from "elysia";
import "../../validation/schemas.ts"; // registers the "printable" format

/**
 * A machine's fingerprint as the client computes it: opaque to depot, 1–255 printable characters
 * (no control characters: it is shown in the dashboard and pasted around), unique per license. The
 * README ("Machines") says how to compute a stable one.
 */
export const Fingerprint = t.String({
  minLength: 1,
  maxLength: 255,
  format: "printable",
  description: "the machine's fingerprint: 1–255 printable characters, opaque to depot",
});
