/** Dashboard passwords: argon2id through Bun's built-in hasher (no native dependency). */
export const PASSWORD_MIN_LENGTH = 8;
/** argon2 takes any length, but hashing megabytes per attempt would be a cheap way to burn our CPU. */
export const PASSWORD_MAX_LENGTH = 1024;

/** What is wrong with a new password, or null when it may be used. */
export function passwordProblem(password: string): string | null {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) return `the password must be at least ${PASSWORD_MIN_LENGTH} characters`;
  if (length > PASSWORD_MAX_LENGTH)
    return `the password may not be longer than ${PASSWORD_MAX_LENGTH} characters`;
  return null;
}

export const hashPassword = (password: string): Promise<string> =>
  Bun.password.hash(password, { algorithm: "argon2id" });

export const verifyPassword = (password: string, hash: string): Promise<boolean> =>
  Bun.password.verify(password, hash).catch(() => false);
