/**
 * The exit codes every client command (`depot versions`, `depot download`, …) shares, as the README's
 * "Client commands" section documents them, so a pipeline can tell "fix the request" from "try later".
 */
export const EXIT = {
  ok: 0,
  /** The server refused (a 4xx, its message printed), or what arrived is not what it published. */
  refused: 1,
  /** Bad or missing options, no server, an unusable path (UsageError), or a file not to be replaced. */
  usage: 2,
  /** Connection errors and 5xx answers went on through every retry. */
  gaveUp: 3,
} as const;

/** A client command's failure: main prints the message and exits with `exitCode`. */
export class ClientFailure extends Error {
  constructor(
    message: string,
    readonly exitCode: Exclude<(typeof EXIT)[keyof typeof EXIT], typeof EXIT.ok>,
  ) {
    super(message);
  }
}

/** A final answer: retrying cannot change it (exit 1). `status` is the HTTP status, when there was one. */
export class Refused extends ClientFailure {
  constructor(
    message: string,
    readonly status: number | null = null,
  ) {
    super(message, EXIT.refused);
  }
}

/** The network or the server kept failing until the retries ran out (exit 3). */
export class GaveUp extends ClientFailure {
  constructor(message: string) {
    super(message, EXIT.gaveUp);
  }
}
