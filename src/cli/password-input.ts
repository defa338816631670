import { passwordProblem } from "../features/auth/passwords.ts";
import { UsageError } from "./command.ts";

/** A new password from stdin's first line, checked before anything opens the database. */
export async function readNewPassword(): Promise<string> {
  const password = await readStdinLine();
  if (password === null || password === "")
    throw new UsageError("expected the password on stdin (one line)", false);
  const problem = passwordProblem(password);
  if (problem) throw new UsageError(problem, false);
  return password;
}

/**
 * The first line of stdin, without its line ending; null when stdin ends before any character.
 * Reading stops at the first newline, so `echo pw | depot …` and a typed line ended by Enter both work,
 * and a password never has to appear in the process list or shell history as an argument.
 */
export async function readStdinLine(
  stream: ReadableStream<Uint8Array> = Bun.stdin.stream(),
): Promise<string | null> {
  const decoder = new TextDecoder();
  let text = "";
  const reader = stream.getReader();
  try {
    while (!text.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    reader.releaseLock();
  }
  text += decoder.decode();
  if (text === "") return null;
  return (text.split("\n")[0] ?? "").replace(/\r$/, "");
}
