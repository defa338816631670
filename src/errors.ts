/**
 * The errors services, storage and the CLI throw. Each carries the HTTP status it means; the error
 * renderer (http/error-renderer.ts) turns it into the Laravel body the README's HTTP API section
 * shows, and the CLI prints its message. No handler builds an error body by hand.
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  body(): Record<string, unknown> {
    return { message: this.message };
  }
}

export class Unauthenticated extends AppError {
  constructor(message = "Unauthenticated.", scheme = "Bearer") {
    super(401, message, { "www-authenticate": scheme });
  }
}

export class Forbidden extends AppError {
  constructor(message = "This action is unauthorized.") {
    super(403, message);
  }
}

/** A state-changing request made with a session cookie from another site (auth/csrf.ts). */
export class CrossSiteRefused extends AppError {
  constructor() {
    super(403, "Cross-site request refused.");
  }
}

/** Laravel's 419: a session-authenticated change without the session's `X-CSRF-Token`. */
export class CsrfMismatch extends AppError {
  constructor() {
    super(419, "CSRF token mismatch.");
  }
}

/** `new NotFound("Product")` → 404 `{"message":"Product not found."}` */
export class NotFound extends AppError {
  constructor(thing = "Resource") {
    super(404, `${thing} not found.`);
  }
}

export class PayloadTooLarge extends AppError {
  constructor(message = "The request body is too large.") {
    super(413, message);
  }
}

export class TooManyAttempts extends AppError {
  constructor(retryAfterSeconds?: number) {
    super(429, "Too Many Attempts.", retryAfterSeconds ? { "retry-after": String(retryAfterSeconds) } : {});
  }
}

/** Sign-in's own 429, which tells the person how long to wait (sessions/sign-in-throttle.ts). */
export class TooManySignInAttempts extends AppError {
  constructor(retryAfterSeconds: number) {
    super(429, `Too many sign-in attempts. Please try again in ${retryAfterSeconds} seconds.`, {
      "retry-after": String(retryAfterSeconds),
    });
  }
}

/**
 * 503: PostgreSQL cannot be reached, did not answer in time or ended the connection (a restart, a
 * network that drops packets: db/errors.ts). Clients may try again shortly.
 */
export class DatabaseUnavailable extends AppError {
  constructor() {
    super(503, "Database unavailable.", { "retry-after": "5" });
  }
}

/** Field → its messages, as a 422 lists them. */
export type FieldMessages = Record<string, string[]>;

/**
 * 422 with Laravel's summary message: the first error, then "(and N more errors)". The control socket
 * answers input a command does not take 400 with the same body (cli/admin-action.ts).
 */
export class Invalid extends AppError {
  constructor(
    readonly errors: FieldMessages,
    status = 422,
  ) {
    super(status, summarise(errors));
  }

  override body() {
    return { message: this.message, errors: this.errors };
  }
}

/**
 * Collects what is wrong with a request, field by field, so every failing field is reported in one
 * 422 as Laravel's validator does. Like Laravel, a field keeps the first message it got.
 */
export class FieldErrors {
  readonly messages: FieldMessages = {};

  add(field: string, message: string): void {
    this.messages[field] ??= [message];
  }

  /** Adds another check's messages (an Invalid it threw, or its messages); `replace` lets them win. */
  merge(more: FieldMessages | Invalid, { replace = false } = {}): void {
    const messages = more instanceof Invalid ? more.errors : more;
    for (const [field, list] of Object.entries(messages)) {
      if (replace || !(field in this.messages)) this.messages[field] = list;
    }
  }

  has(field: string): boolean {
    return field in this.messages;
  }

  get isEmpty(): boolean {
    return Object.keys(this.messages).length === 0;
  }

  throwIfAny(): void {
    if (!this.isEmpty) throw new Invalid(this.messages);
  }
}

/**
 * Runs independent checks and reports every failing field in one 422, instead of stopping at the
 * first check that throws. Where two checks fault one field, the later check's message wins.
 */
export async function validateAll<T extends unknown[]>(
  ...checks: { [K in keyof T]: () => T[K] | Promise<T[K]> }
): Promise<T> {
  const settled = await Promise.allSettled(checks.map(async (check) => check()));
  const errors = new FieldErrors();
  for (const result of settled) {
    if (result.status === "fulfilled") continue;
    if (!(result.reason instanceof Invalid)) throw result.reason;
    errors.merge(result.reason, { replace: true });
  }
  errors.throwIfAny();
  return settled.map((result) => (result as PromiseFulfilledResult<unknown>).value) as T;
}

function summarise(errors: FieldMessages): string {
  const messages = Object.values(errors).flat();
  const [first = "The given data was invalid."] = messages;
  const more = messages.length - 1;
  if (more <= 0) return first;
  return `${first} (and ${more} more error${more === 1 ? "" : "s"})`;
}
