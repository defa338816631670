// depot-client: the app side of depot (sdk/README.md is the contract, README.md the reference).
export { Client } from "./client.js";
export type { ClientOptions } from "./config.js";
export type { Downloadable, DownloadOptions } from "./download.js";
export {
  DepotError,
  type LicenseFileCheck,
  LicenseFileError,
  RefusedError,
  UnreachableError,
  type UnverifiableCheck,
  UnverifiableError,
} from "./errors.js";
export { type FingerprintOptions, machineFingerprint } from "./fingerprint.js";
export { type Jwks, type PublicJwk, parseJwks } from "./jwks.js";
export type { LicenseFileOptions } from "./license-file.js";
export type { CheckoutOptions, ValidateOptions } from "./licenses.js";
export type { HeartbeatHandle, HeartbeatOptions, MachineDetails } from "./machines.js";
export type {
  Activation,
  Artifact,
  License,
  LicenseFile,
  Machine,
  Release,
  Status,
  StatusSource,
  Upgrade,
  Validation,
  ValidationCode,
} from "./types.js";
export type { UpgradeOptions } from "./upgrade.js";
export { VERSION } from "./version.js";
