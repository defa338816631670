/**
 * What can go wrong when asking depot, as four kinds an app handles differently (sdk/README.md,
 * "Three outcomes, never one boolean"). A license that is not valid is none of them: it is a result.
 */
export class DepotError extends Error {
  override name = "DepotError";
}

/** Which check an answer failed (the order of sdk/README.md, "What is checked"). */
export type UnverifiableCheck =
  /** no Signature or Signature-Input header */
  | "signed"
  /** Content-Digest missing, malformed, or not the body's */
  | "digest"
  /** Signature-Input or Signature not what depot sends */
  | "signature-input"
  /** the keyid is not a pinned (or, with fetchJwks, published) Ed25519 key */
  | "key"
  /** the Ed25519 signature does not verify */
  | "signature"
  /** `created` is outside maxClockSkew (or a kept answer older than offlineGrace) */
  | "created"
  /** the body is not the JSON object the operation answers */
  | "body"
  /** the body does not echo the request's nonce */
  | "nonce"
  /** the answer is about another license, product, machine or upgrade than the one asked */
  | "subject"
  /** a downloaded file's name, size or hash is not the artifact's */
  | "download";

/**
 * An answer came, but it is not provably depot's answer to this request: forged, replayed, tampered
 * with, signed by a key the app does not pin, or about something else. Treat it like no answer at
 * all, and never like "valid".
 */
export class UnverifiableError extends DepotError {
  override name = "UnverifiableError";

  constructor(
    message: string,
    /** An answer's check, or a license file's (a LicenseFileError's: LicenseFileCheck). */
    readonly check: UnverifiableCheck | LicenseFileCheck,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** No answer: DNS, a refused connection, a timeout, TLS, or a 5xx that lasted through the retries. */
export class UnreachableError extends DepotError {
  override name = "UnreachableError";
}

/**
 * depot answered (and the answer verified, when it was signed) but refused what was asked:
 * `code` is depot's (TOO_MANY_MACHINES, TOO_MANY_ACTIVATIONS, HEARTBEAT_DEAD, REVOKED, EXPIRED,
 * NOT_FOUND, MACHINE_FILE_VALID, …), or for a refusal without one UNAUTHENTICATED (401), FORBIDDEN
 * (403), NOT_FOUND (404), INVALID (400, 422: see `errors`), TOO_MANY_REQUESTS (429), else HTTP_<status>.
 */
export class RefusedError extends DepotError {
  override name = "RefusedError";

  constructor(
    readonly code: string,
    message: string,
    /** The HTTP status of the refusal. */
    readonly status: number,
    readonly details: {
      /** Seconds until a TOO_MANY_ACTIVATIONS (or any 429) may be tried again, from Retry-After. */
      retryAfter?: number;
      /** A 422's messages per field, as depot names them. */
      errors?: Record<string, string[]>;
      /** MACHINE_FILE_VALID: when the license file that holds the machine's seat expires. */
      fileExpiresAt?: Date;
    } = {},
  ) {
    super(message);
  }

  get retryAfter(): number | undefined {
    return this.details.retryAfter;
  }

  get errors(): Record<string, string[]> | undefined {
    return this.details.errors;
  }

  /** MACHINE_FILE_VALID: the machine keeps its seat until then (its license file works offline). */
  get fileExpiresAt(): Date | undefined {
    return this.details.fileExpiresAt;
  }
}

/** Which rule a license file broke (sdk/README.md, "What is checked", the license file paragraph). */
export type LicenseFileCheck =
  /** not an armoured compact JWS */
  | "format"
  /** alg is not EdDSA, or typ not depot-license+jwt */
  | "header"
  /** its kid is not a pinned key */
  | "key"
  /** the signature does not verify */
  | "signature"
  /** issued by another depot (or this one under another URL) */
  | "issuer"
  /** nbf or iat in the future */
  | "not-yet-valid"
  /** exp (plus the grace) or the license's own expiry is past */
  | "expired"
  /** for another product */
  | "product"
  /** for another license key */
  | "license-key"
  /** bound to another machine, or to none when one was asked for */
  | "fingerprint";

/**
 * A license file that does not verify, or whose claims do not hold for this app and machine now:
 * unverifiable, expired or forged alike (sdk/README.md), with the rule it broke.
 */
export class LicenseFileError extends UnverifiableError {
  override name = "LicenseFileError";
  declare readonly check: LicenseFileCheck;

  constructor(message: string, check: LicenseFileCheck) {
    super(message, check);
  }
}
