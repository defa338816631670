/**
 * Checks a depot license the way shipped software should, with depot's TypeScript client library
 * (depot-client, sdk/js): every answer must carry depot's Ed25519 signature (RFC 9421 over an RFC 9530
 * digest of the body) by a pinned key, echo the request's nonce and be about this license; the offline
 * license file must be a JWS signed by the same keys. The library does every check; this program says
 * what it found, one line per step.
 *
 *   bun examples/verify-typescript/verify.ts <DEPOT_URL> <LICENSE_KEY> [--product ID] [--license-file PATH]
 *       [--jwks PATH] [--fingerprint FP]
 *
 * --jwks pins depot's keys: they are read from that file (the JWKS depot serves at
 * /.well-known/jwks.json, shipped with the software) and never fetched.
 *
 * --product is the product the software is (an app always knows it). Without it, this example asks
 * depot which product the key is for, so that it can check any key: a validation for no product
 * (id 0) is answered PRODUCT_MISMATCH, signed, verified and about this key, naming its product.
 *
 * --fingerprint binds the license to this machine: it is activated first, sends one heartbeat, is
 * validated with its fingerprint, and the license file must be bound to it.
 *
 * DEPOT_URL and LICENSE_KEY may come from the environment instead. Exit 0: the answer verified, it
 * said VALID and the license file verified; 1: anything else; 2: usage error.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import {
  Client,
  DepotError,
  LicenseFileError,
  RefusedError,
  UnverifiableError,
  type Validation,
} from "depot-client";

const USAGE =
  "usage: verify <DEPOT_URL> <LICENSE_KEY> [--product ID] [--license-file PATH] [--jwks PATH] [--fingerprint FP]\n" +
  "       (DEPOT_URL and LICENSE_KEY may also come from the environment)";
const DEFAULT_LICENSE_FILE = "depot-license.lic";
const UNPINNED_WARNING =
  "warning: keys from the server itself only stop a fake that copies depot's keys; shipped software should pin them with --jwks";
/** No product has id 0: depot answers PRODUCT_MISMATCH, naming the key's own product. */
const NO_PRODUCT = "0";

interface Config {
  url: string;
  key: string;
  product: string | undefined;
  licenseFile: string;
  jwks: string | undefined;
  /** This machine's fingerprint, when the license is to be bound to it. */
  fingerprint: string | undefined;
}

// --- arguments ------------------------------------------------------------------------------

function usage(message: string): never {
  console.error(`${message}\n${USAGE}`);
  process.exit(2);
}

const parseCommandLine = () =>
  parseArgs({
    allowPositionals: true,
    strict: true,
    options: {
      product: { type: "string" },
      "license-file": { type: "string" },
      jwks: { type: "string" },
      fingerprint: { type: "string" },
      help: { type: "boolean" },
    },
  });

function readConfig(): Config {
  let parsed: ReturnType<typeof parseCommandLine>;
  try {
    parsed = parseCommandLine();
  } catch (error) {
    usage((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) usage("verifies depot's signed license answers and an offline license file");
  if (positionals.length > 2) usage(`too many arguments: ${positionals.slice(2).join(" ")}`);
  const url = (positionals[0] ?? process.env.DEPOT_URL ?? "").replace(/\/+$/, "");
  const key = positionals[1] ?? process.env.LICENSE_KEY ?? "";
  if (!/^https?:\/\/[^/]/.test(url)) usage(`DEPOT_URL must be an http(s) URL, got "${url}"`);
  if (key.trim() === "") usage("LICENSE_KEY is missing");
  if (values.product !== undefined && !/^[0-9]+$/.test(values.product)) {
    usage(`--product must be a numeric id, got "${values.product}"`);
  }
  if (values["license-file"] === "") usage("--license-file needs a path");
  if (values.jwks === "") usage("--jwks needs a path");
  // The server refuses control characters itself (422), which this example then reports.
  if (
    values.fingerprint !== undefined &&
    (values.fingerprint.length === 0 || values.fingerprint.length > 255)
  ) {
    usage("--fingerprint must be 1 to 255 characters");
  }
  return {
    url,
    key,
    product: values.product,
    licenseFile: values["license-file"] ?? DEFAULT_LICENSE_FILE,
    jwks: values.jwks,
    fingerprint: values.fingerprint,
  };
}

// --- what the library found, in words -------------------------------------------------------

/** An error's message; for a key that is not pinned, also where the pinned ones are. */
function why(error: unknown, config: Config): string {
  if (!(error instanceof Error)) return String(error);
  const keyCheck =
    (error instanceof UnverifiableError || error instanceof LicenseFileError) && error.check === "key";
  if (keyCheck && config.jwks !== undefined) return `${error.message} (not in ${config.jwks})`;
  if (error instanceof LicenseFileError && error.check === "issuer") {
    return (
      `${error.message} (the issuer is the depot's APP_URL: verify with the URL the server's APP_URL ` +
      "names, or set APP_URL to the address clients use)"
    );
  }
  return error.message;
}

/** A refusal of depot's (a malformed key): its answer verified, and it says no. */
const refused = (error: RefusedError) => `HTTP ${error.status}: ${error.message}`;

/** "VALID", or why not (null for VALID). */
function outcome(validation: Validation, config: Config): string | null {
  if (!validation.valid) return validation.code;
  if (config.fingerprint !== undefined && validation.machine?.alive !== true)
    return "this machine is not alive";
  return null;
}

// --- the steps --------------------------------------------------------------------------------

/**
 * The product of the key, from a verified answer: a validation for no product is PRODUCT_MISMATCH
 * about this key, naming its product (or NOT_FOUND, naming none). Only for a program that checks any
 * product's keys: an app passes its own.
 */
async function productOfKey(client: Client, key: string): Promise<string | undefined> {
  const validation = await client.validate(key);
  return validation.license?.productId;
}

/**
 * Activates this machine (201 new, 200 already active) and sends one heartbeat. A real app sends
 * heartbeats every heartbeatSeconds while it runs (client.startHeartbeat); HEARTBEAT_DEAD means the
 * seat was lost and it must activate again.
 */
async function activateAndHeartbeat(client: Client, config: Config, fingerprint: string): Promise<void> {
  let step = "activate";
  try {
    const platform = `${process.platform}-${process.arch}`;
    const { machine, created } = await client.activate(config.key, fingerprint, {
      name: "verify example",
      platform,
    });
    console.log(`machine: ${created ? "activated" : "already active"} (${machine.id})`);
    step = "heartbeat";
    const beaten = await client.heartbeat(config.key, machine.id);
    if (!beaten.alive) throw new DepotError("not alive");
    console.log(
      `heartbeat: signature and digest verified, nonce echoed, alive since ${beaten.lastHeartbeatAt}`,
    );
  } catch (error) {
    if (error instanceof RefusedError) {
      throw new DepotError(`${step}: HTTP ${error.status}: ${error.code} ${error.message}`);
    }
    if (error instanceof DepotError) throw new DepotError(`${step}: ${why(error, config)}`);
    throw error;
  }
}

/** Validates, and prints what the answer said. True for VALID. */
async function validateStep(client: Client, config: Config): Promise<boolean> {
  try {
    const options = config.fingerprint === undefined ? {} : { fingerprint: config.fingerprint };
    const validation = await client.validate(config.key, options);
    console.log("answer: signature, digest and nonce verified (HTTP 200)");
    const problem = outcome(validation, config);
    console.log(problem === null ? "VALID" : `INVALID (${problem})`);
    return problem === null;
  } catch (error) {
    reportInvalid(error, config);
    return false;
  }
}

function reportInvalid(error: unknown, config: Config) {
  if (error instanceof RefusedError) {
    // An error answer carries no nonce; it can only say "no", which anyone in the middle can do anyway.
    console.log(`answer: signature and digest verified (HTTP ${error.status})`);
    console.log(`INVALID (${refused(error)})`);
  } else if (error instanceof DepotError) {
    console.log(`INVALID (${why(error, config)})`);
  } else {
    throw error;
  }
}

/** Uses the file at config.licenseFile, or checks one out (verified by the library) and writes it. */
async function obtainLicenseFile(client: Client, config: Config): Promise<void> {
  if (existsSync(config.licenseFile)) {
    console.log(`license file: using ${config.licenseFile}`);
    return;
  }
  let checkout: Validation;
  try {
    const options = config.fingerprint === undefined ? {} : { fingerprint: config.fingerprint };
    checkout = await client.checkout(config.key, options);
  } catch (error) {
    if (error instanceof RefusedError) throw new DepotError(`checkout: ${refused(error)}`);
    if (error instanceof DepotError) throw new DepotError(`checkout: ${why(error, config)}`);
    throw error;
  }
  const problem = outcome(checkout, config);
  if (problem !== null) throw new DepotError(`checkout: ${problem}`);
  if (checkout.licenseFile === undefined) throw new DepotError("checkout: no license_file in the answer");
  writeFileSync(config.licenseFile, checkout.licenseFile);
  console.log(
    `license file: checked out (until ${checkout.licenseFileExpiresAt?.toISOString()}), written to ${config.licenseFile}`,
  );
}

async function licenseFileStep(client: Client, config: Config): Promise<boolean> {
  try {
    await obtainLicenseFile(client, config);
    // Offline: the file stands on its own signature, which is what lets the software run without depot.
    const file = await client.verifyLicenseFile(readFileSync(config.licenseFile, "utf8"), {
      key: config.key,
      ...(config.fingerprint === undefined ? {} : { fingerprint: config.fingerprint }),
    });
    console.log(`license file VALID until ${file.expiresAt.toISOString().replace(".000Z", "Z")}`);
    return true;
  } catch (error) {
    if (!(error instanceof DepotError)) throw error;
    console.log(`license file INVALID (${why(error, config)})`);
    return false;
  }
}

// --- main -----------------------------------------------------------------------------------

async function main(): Promise<number> {
  const config = readConfig();
  if (config.jwks === undefined) console.error(UNPINNED_WARNING);
  let keys: { jwks: string } | { fetchJwks: true };
  try {
    keys = config.jwks === undefined ? { fetchJwks: true } : { jwks: readFileSync(config.jwks, "utf8") };
  } catch (error) {
    console.log(`keys: INVALID (cannot read ${config.jwks}: ${(error as Error).message})`);
    return 1;
  }
  const clientFor = (productId: string) => new Client({ server: config.url, productId, ...keys });
  let client: Client;
  try {
    client = clientFor(config.product ?? NO_PRODUCT);
    const source =
      config.jwks === undefined ? `from ${config.url}/.well-known/jwks.json` : `pinned in ${config.jwks}`;
    console.log(`keys: ${(await client.keys()).length} Ed25519 key(s) ${source}`);
  } catch (error) {
    console.log(`keys: INVALID (${(error as Error).message})`);
    return 1;
  }

  let failed: unknown = null;
  if (config.product === undefined) {
    try {
      const product = await productOfKey(client, config.key);
      if (product !== undefined) client = clientFor(product);
    } catch (error) {
      failed = error;
    }
  }

  if (config.fingerprint !== undefined) {
    try {
      if (failed !== null) throw new DepotError(`activate: ${why(failed, config)}`);
      await activateAndHeartbeat(client, config, config.fingerprint);
    } catch (error) {
      if (!(error instanceof DepotError)) throw error;
      console.log(`machine: INVALID (${error.message})`);
      return 1;
    }
  }

  let answerOk = false;
  if (failed === null) answerOk = await validateStep(client, config);
  else reportInvalid(failed, config);
  const fileOk = await licenseFileStep(client, config);
  return answerOk && fileOk ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.log(`INVALID (${error instanceof Error ? error.message : String(error)})`);
    process.exit(1);
  },
);
