import { Text } from "../../validation/schemas.ts";

/**
 * A machine's fingerprint as the client computes it: opaque to depot, 1–255 characters of plain text
 * (no control characters, no bidirectional controls: it is shown in the dashboard and pasted
 * around), unique per license. The README ("Machines") says how to compute a stable one.
 */
export const Fingerprint = Text({
  minLength: 1,
  maxLength: 255,
  description: "the machine's fingerprint: 1–255 characters of plain text, opaque to depot",
});
