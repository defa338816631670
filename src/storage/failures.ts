import { AppError } from "../errors.ts";

/** 507: the release could not be stored (RFC 4918: the server cannot store what the request needs). */
export class InsufficientStorage extends AppError {
  constructor(message: string) {
    super(507, message);
  }
}

const FULL = new Set(["ENOSPC", "EDQUOT"]);

/** What the client is told when the release store fails: a full disk, or another storage failure. */
export function storageFailure(error: unknown): InsufficientStorage {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return new InsufficientStorage(
    code !== undefined && FULL.has(code)
      ? "There is not enough storage space left for this file."
      : "The file could not be stored.",
  );
}
