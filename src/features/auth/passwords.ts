import { Value } from "@sinclair/typebox/value";
import { t } from "elysia";

/** Dashboard passwords: argon2id through Bun's built-in hasher (no native dependency). */
export const PASSWORD_MIN_LENGTH = 8;
/** argon2 takes any length, but hashing megabytes per attempt would be a cheap way to burn our CPU. */
export const PASSWORD_MAX_LENGTH = 1024;

/**
 * A new password, the one rule every way of setting one checks: setup, a password link, the profile,
 * `depot user:create --password-stdin` and `user:password`, here or through the control socket.
 */
export const NewPassword = t.String({ minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH });

/** What is wrong with a new password (NewPassword), in the CLI's words, or null when it may be used. */
export function passwordProblem(password: string): string | null {
  const { length } = password;
  if (Value.Check(NewPassword, password)) return null;
  return length < PASSWORD_MIN_LENGTH
    ? `the password must be at least ${PASSWORD_MIN_LENGTH} characters`
    : `the password may not be longer than ${PASSWORD_MAX_LENGTH} characters`;
}

export const hashPassword = (password: string): Promise<string> =>
  Bun.password.hash(password, { algorithm: "argon2id" });

export const verifyPassword = (password: string, hash: string): Promise<boolean> =>
  Bun.password.verify(password, hash).catch(() => false);
