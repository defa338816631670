import { passwordProblem } from "../features/auth/passwords.ts";
import { UsageError } from "./command.ts";
import { readStdinLine } from "./stdin-line.ts";

/** A new password from stdin's first line, checked before anything opens the database. */
export async function readNewPassword(): Promise<string> {
  const password = await readStdinLine();
  if (password === null || password === "")
    throw new UsageError("expected the password on stdin (one line)", false);
  const problem = passwordProblem(password);
  if (problem) throw new UsageError(problem, false);
  return password;
}
