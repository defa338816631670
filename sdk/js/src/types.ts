// What the operations return. Objects depot sends (a license, a machine, a release and its
// artifacts) are given as depot sends them (docs/integrators.md): the license API's camelCase, the
// releases' snake_case.

/** depot's validation codes; an unknown one (a newer depot's) is kept as it is. */
export type ValidationCode =
  | "VALID"
  | "NOT_FOUND"
  | "REVOKED"
  | "EXPIRED"
  | "PRODUCT_MISMATCH"
  | "FINGERPRINT_REQUIRED"
  | "NOT_ACTIVATED"
  | "HEARTBEAT_DEAD"
  | "TOO_MANY_IPS"
  | (string & {});

export interface License {
  id: string;
  userId: string;
  creatorId: string;
  productId: string;
  /** ISO 8601, or null: never expires. */
  expires: string | null;
  /** null: no address limit. */
  maxIps: number | null;
  key: string;
  createdAt: string;
  updatedAt: string;
  /** Only on a license that uses machines. */
  maxMachines?: number | null;
  floating?: boolean;
  heartbeatSeconds?: number | null;
}

export interface Machine {
  id: string;
  licenseId: string;
  fingerprint: string;
  name: string | null;
  platform: string | null;
  hostname: string | null;
  createdAt: string;
  lastHeartbeatAt: string;
  /** false: it missed its heartbeats and holds no seat. */
  alive: boolean;
}

/** validate's (and checkout's) verified answer. */
export interface Validation {
  valid: boolean;
  code: ValidationCode;
  /** depot's sentence for the code. */
  detail: string;
  /** null for NOT_FOUND. */
  license: License | null;
  /** max null: no address limit. */
  ips?: { count: number; max: number | null };
  /** For a license with machines, or when a fingerprint was given. */
  machines?: { count: number; max: number | null };
  /** When a fingerprint was given: its machine, or null when it is not activated. */
  machine?: Machine | null;
  /** checkout only, when valid: the license file (verified before it is returned). */
  licenseFile?: string;
  licenseFileExpiresAt?: Date;
  /** When depot signed the answer. */
  signedAt: Date;
}

export interface Activation {
  machine: Machine;
  license: License;
  /** true: activated now (201); false: the fingerprint was already active (200). */
  created: boolean;
  signedAt: Date;
}

export interface Artifact {
  id: number;
  version_id: number;
  platform: string;
  arch: string;
  file_name: string;
  file_size: number;
  /** hex */
  sha256: string;
  /** base64; null only for a file stored before depot kept it. */
  sha512: string | null;
  content_type: string;
  signature: string | null;
  download_url: string;
  created_at: string;
}

/** A published version, as depot's upgrade check names it (its artifacts narrowed to the platform and arch). */
export interface Release {
  id: number;
  product_id: string;
  version_number: string;
  title: string;
  changelog: string;
  changelog_format: "markdown" | "html";
  channel: string;
  critical: boolean;
  published_at: string | null;
  artifacts: Artifact[];
  [field: string]: unknown;
}

export interface Upgrade {
  /** Whether a newer version is offered. */
  upgrade: boolean;
  /** The version the app runs, as sent. */
  current: string;
  /** The offered version's number, or null. */
  version: string | null;
  release: Release | null;
  /** The offered version's files for the platform and arch asked (empty when none is offered). */
  artifacts: Artifact[];
  signedAt: Date;
}

/** A license file's claims, after verifyLicenseFile checked them. */
export interface LicenseFile {
  key: string;
  productId: string;
  /** The license's id (`sub`). */
  licenseId: string;
  issuer: string;
  issuedAt: Date;
  /** `exp`: until when the file may be used (graceSeconds aside). */
  expiresAt: Date;
  /** The license's own expiry, or null. */
  licenseExpires: Date | null;
  /** For a machine-bound file. */
  fingerprint: string | null;
  machineId: string | null;
  /** Every claim as the file has it. */
  claims: Record<string, unknown>;
}

/** Where status() got its answer. */
export type StatusSource = "online" | "cache" | "licenseFile" | "none";

export interface Status {
  valid: boolean;
  /** The validation code; for source "none", UNREACHABLE or UNVERIFIABLE. */
  code: ValidationCode | "UNREACHABLE" | "UNVERIFIABLE";
  source: StatusSource;
  /** When depot last said so: the answer's signature time, or the license file's issue time; null for "none". */
  checkedAt: Date | null;
  /** Why it did not come online (an UnreachableError or UnverifiableError). */
  error?: Error;
  validation?: Validation;
  licenseFile?: LicenseFile;
}
