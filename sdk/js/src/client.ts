import type { ClientOptions } from "./config.js";
import { Core } from "./core.js";
import { type Downloadable, type DownloadOptions, download } from "./download.js";
import type { PublicJwk } from "./jwks.js";
import { type LicenseFileOptions, verifyLicenseFile } from "./license-file.js";
import { type CheckoutOptions, licenseFileContext, type ValidateOptions, validate } from "./licenses.js";
import {
  activate,
  deactivate,
  type HeartbeatHandle,
  type HeartbeatOptions,
  heartbeat,
  type MachineDetails,
  offlineActivationRequest,
  startHeartbeat,
} from "./machines.js";
import { status } from "./status.js";
import type { Activation, LicenseFile, Machine, Status, Upgrade, Validation } from "./types.js";
import { checkForUpdate, type UpgradeOptions } from "./upgrade.js";

/** A heartbeat a minute unless told otherwise (sdk/README.md): within any lease of 2 minutes or more. */
const DEFAULT_HEARTBEAT_SECONDS = 60;

/**
 * The app's side of depot, bound to one server and one product. Every answer an operation returns has
 * been verified as depot's answer to that very request; otherwise it throws UnverifiableError (an
 * answer that is not provably depot's), UnreachableError (no answer) or RefusedError (depot said no).
 */
export class Client {
  readonly #core: Core;

  /** Throws a TypeError for options that cannot work (no server, no pinned keys, …). */
  constructor(options: ClientOptions) {
    this.#core = new Core(options);
  }

  /** The server's base URL, without a trailing slash. */
  get server(): string {
    return this.#core.settings.server;
  }

  get productId(): string {
    return this.#core.settings.productId;
  }

  /** The keys answers are verified with: the pinned set, or (fetchJwks) the server's, fetched at first use. */
  keys(): Promise<readonly PublicJwk[]> {
    return this.#core.keys.list();
  }

  /** Whether `key` is valid for this product (and machine). Not valid is a result, not an error. */
  validate(key: string, options: ValidateOptions = {}): Promise<Validation> {
    return validate(this.#core, key, options);
  }

  /** validate, and when valid a license file for offline use (verified, and kept for status()). */
  checkout(key: string, options: CheckoutOptions = {}): Promise<Validation> {
    return validate(this.#core, key, options, "checkout");
  }

  /** Verifies a license file offline, with the pinned keys; throws LicenseFileError naming what is wrong. */
  verifyLicenseFile(text: string, options: LicenseFileOptions = {}): Promise<LicenseFile> {
    return verifyLicenseFile(licenseFileContext(this.#core), text, {
      ...options,
      now: options.now ?? this.#core.settings.clock(),
    });
  }

  /** Activates this machine on the license (a refusal such as TOO_MANY_MACHINES is a RefusedError). */
  activate(key: string, fingerprint: string, details: MachineDetails = {}): Promise<Activation> {
    return activate(this.#core, key, fingerprint, details);
  }

  /** Keeps the machine alive for another heartbeatSeconds. HEARTBEAT_DEAD: activate it again. */
  heartbeat(key: string, machineId: string): Promise<Machine> {
    return heartbeat(this.#core, key, machineId);
  }

  /** Heartbeats at once, then in the background until `stop()` (or until depot refuses one: see onError). */
  startHeartbeat(key: string, machineId: string, options: HeartbeatOptions = {}): HeartbeatHandle {
    const interval = options.intervalSeconds ?? DEFAULT_HEARTBEAT_SECONDS;
    return startHeartbeat(() => this.heartbeat(key, machineId), interval, options.onError);
  }

  /** Frees the machine's seat. */
  deactivate(key: string, machineId: string): Promise<void> {
    return deactivate(this.#core, key, machineId);
  }

  /** The text an air-gapped machine hands to its owner, who gets its license file from depot's dashboard. */
  offlineActivationRequest(key: string, fingerprint: string, details: MachineDetails = {}): string {
    return offlineActivationRequest(key, fingerprint, details);
  }

  /** The newest version offered to an app running `currentVersion` (key null: a free product). */
  checkForUpdate(key: string | null, currentVersion: string, options: UpgradeOptions = {}): Promise<Upgrade> {
    return checkForUpdate(this.#core, key, currentVersion, options);
  }

  /** Downloads an artifact into `directory`, verified; returns the file's path. */
  download(
    key: string | null,
    artifact: Downloadable,
    directory: string,
    options: DownloadOptions = {},
  ): Promise<string> {
    return download(this.#core, key, artifact, directory, options);
  }

  /** validate when depot answers, else what was kept: an app keeps working through an outage. */
  status(key: string, options: ValidateOptions = {}): Promise<Status> {
    return status(this.#core, key, options.fingerprint);
  }
}
