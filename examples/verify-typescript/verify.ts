/**
 * Checks a depot license the way shipped software should: every answer from the server must carry
 * depot's Ed25519 signature (RFC 9421 over an RFC 9530 digest of the body), and the offline license
 * file must be a JWS signed by the same keys.
 *
 *   bun examples/verify-typescript/verify.ts <DEPOT_URL> <LICENSE_KEY> [--product ID] [--license-file PATH]
 *       [--jwks PATH] [--fingerprint FP]
 *
 * --jwks pins depot's keys: they are read from that file (the JWKS depot serves at
 * /.well-known/jwks.json, shipped with the software) and never fetched.
 *
 * --fingerprint binds the license to this machine: it is activated first (POST /api/v1/licenses/activate),
 * validated with its fingerprint, sends one heartbeat, and the license file must be bound to it.
 *
 * DEPOT_URL and LICENSE_KEY may come from the environment instead. Exit 0: the answer verified, it
 * said VALID and the license file verified; 1: anything else; 2: usage error.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { jwtVerify } from "jose";
import { JWTClaimValidationFailed } from "jose/errors";

const USAGE =
  "usage: verify <DEPOT_URL> <LICENSE_KEY> [--product ID] [--license-file PATH] [--jwks PATH] [--fingerprint FP]\n" +
  "       (DEPOT_URL and LICENSE_KEY may also come from the environment)";
const DEFAULT_LICENSE_FILE = "depot-license.lic";
const LICENSE_FILE_TYPE = "depot-license+jwt";
/** How far `created` may be from our clock. */
const MAX_SKEW_SECONDS = 300;
const UNPINNED_WARNING =
  "warning: keys from the server itself only stop a fake that copies depot's keys; shipped software should pin them with --jwks";

/** A check that failed: the license must not be trusted. */
class Refused extends Error {}

interface Jwk {
  kty: string;
  crv: string;
  x: string;
  kid: string;
  alg?: string;
  use?: string;
}

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

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
  const licenseFile = values["license-file"] ?? DEFAULT_LICENSE_FILE;
  return {
    url,
    key,
    product: values.product,
    licenseFile,
    jwks: values.jwks,
    fingerprint: values.fingerprint,
  };
}

// --- keys -----------------------------------------------------------------------------------

/**
 * depot's keys. Pinned (--jwks): only those in the file shipped with the software, because a server
 * that hands out its own keys can vouch for anything it says. Otherwise fetched from the server, and
 * refetched at most once, when an answer names a key we have not seen.
 */
class KeySet {
  keys: Jwk[] = [];
  private refetched = false;

  constructor(
    private readonly url: string,
    private readonly pinned: string | undefined,
  ) {}

  /** Where the keys come from, for the output. */
  get source(): string {
    return this.pinned === undefined ? `from ${this.url}/.well-known/jwks.json` : `pinned in ${this.pinned}`;
  }

  async load(): Promise<void> {
    const body = this.pinned === undefined ? await this.fetch() : this.read(this.pinned);
    if (typeof body !== "object" || body === null) throw new Refused("the JWKS is not a JSON object");
    const list = (body as { keys?: unknown }).keys;
    if (!Array.isArray(list)) throw new Refused("the JWKS has no keys array");
    // Anything but an Ed25519 signing key is skipped: nothing else may vouch for an answer.
    const keys = list.filter(
      (k): k is Jwk =>
        typeof k === "object" &&
        k !== null &&
        k.kty === "OKP" &&
        k.crv === "Ed25519" &&
        typeof k.x === "string" &&
        typeof k.kid === "string" &&
        (k.alg === undefined || k.alg === "EdDSA") &&
        (k.use === undefined || k.use === "sig"),
    );
    if (keys.length === 0) throw new Refused("the JWKS has no Ed25519 signing key");
    this.keys = keys;
  }

  private read(path: string): unknown {
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (error) {
      throw new Refused(`cannot read ${path}: ${(error as Error).message}`);
    }
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new Refused(`${path} is not JSON (${(error as Error).message})`);
    }
  }

  private async fetch(): Promise<unknown> {
    try {
      const response = await fetch(`${this.url}/.well-known/jwks.json`, {
        signal: AbortSignal.timeout(30_000),
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      return await response.json();
    } catch (error) {
      throw new Refused(`cannot fetch ${this.url}/.well-known/jwks.json: ${(error as Error).message}`);
    }
  }

  /**
   * The key named `kid`. Fetched keys: a new kid may be a key rotated in since we fetched, so look
   * once more. Pinned keys: never, the server does not get to add one.
   */
  async find(kid: string): Promise<Jwk> {
    if (!this.keys.some((k) => k.kid === kid) && this.pinned === undefined && !this.refetched) {
      this.refetched = true;
      await this.load();
    }
    return this.cached(kid);
  }

  /** Only the keys we already hold: for the offline check, and whenever the keys are pinned. */
  cached(kid: string): Jwk {
    const key = this.keys.find((k) => k.kid === kid);
    if (key) return key;
    // Pinned, an unknown kid is a key depot never shipped to us: exactly what a fake server signs with.
    if (this.pinned !== undefined)
      throw new Refused(`the key "${kid}" is not pinned (not in ${this.pinned})`);
    throw new Refused(`no published key has keyid "${kid}"`);
  }
}

// --- signed answers (RFC 9421 + RFC 9530) ---------------------------------------------------

const encoder = new TextEncoder();

function base64Bytes(text: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

/**
 * The raw value of one member of a structured-field dictionary (`a=…, b=…`), or undefined.
 * Commas inside quoted strings and inner lists do not split members.
 */
function dictionaryMember(header: string, name: string): string | undefined {
  const members: string[] = [];
  let start = 0;
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < header.length; i++) {
    const c = header[i];
    if (quoted) {
      if (c === "\\") i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "," && depth === 0) {
      members.push(header.slice(start, i));
      start = i + 1;
    }
  }
  members.push(header.slice(start));
  const found = members.map((m) => m.trim()).filter((m) => m.startsWith(`${name}=`));
  // Two members with one name: a parser elsewhere may pick the other one, so refuse rather than guess.
  if (found.length > 1) throw new Refused(`two "${name}" members in one header`);
  return found[0]?.slice(name.length + 1);
}

/** `:base64:` (a structured-field byte sequence). */
function byteSequence(raw: string | undefined, what: string): Uint8Array<ArrayBuffer> {
  const match = raw === undefined ? null : /^:([A-Za-z0-9+/]*={0,2}):$/.exec(raw);
  if (!match?.[1]) throw new Refused(`${what} is not a byte sequence`);
  return base64Bytes(match[1]);
}

/** `("@status" "content-type" …);created=…;keyid="…";alg="…"` → the components and parameters. */
function signatureParams(raw: string) {
  // Only what depot sends is accepted: components with parameters (;sf, ;key, ;req…) would need
  // a different signature base, and building the wrong one would make the check meaningless.
  const match =
    /^\(((?:"[a-z0-9@_.-]+"(?: "[a-z0-9@_.-]+")*)?)\)((?:;[a-z][a-z0-9_.-]*=(?:"[^"\\]*"|-?[0-9]+))*)$/.exec(
      raw,
    );
  if (!match) throw new Refused(`unsupported Signature-Input: ${raw}`);
  const components = (match[1] ?? "")
    .split(" ")
    .filter(Boolean)
    .map((c) => c.slice(1, -1));
  const params = new Map<string, string | number>();
  for (const [, name, value] of (match[2] ?? "").matchAll(/;([a-z][a-z0-9_.-]*)=("[^"]*"|-?[0-9]+)/g)) {
    if (!name || !value || params.has(name)) throw new Refused(`Signature-Input repeats ;${name}`);
    params.set(name, value.startsWith('"') ? value.slice(1, -1) : Number(value));
  }
  if (new Set(components).size !== components.length)
    throw new Refused("Signature-Input repeats a component");
  return { components, params };
}

/**
 * Checks that `response` is depot's own answer to the request that carried `nonce`: digest, signature
 * by a published key, freshness. Returns the parsed body; throws Refused otherwise.
 */
async function verifyAnswer(response: Response, nonce: string | null, keys: KeySet): Promise<Answer> {
  const bytes = new Uint8Array(await response.arrayBuffer());
  const input = response.headers.get("signature-input");
  const signature = response.headers.get("signature");
  // Without this, anyone who can answer in depot's place (a hosts-file entry, a proxy) says "valid".
  if (input === null || signature === null) throw new Refused("the answer is not signed");

  const paramsText = dictionaryMember(input, "depot");
  if (paramsText === undefined) throw new Refused('Signature-Input has no "depot" signature');
  const { components, params } = signatureParams(paramsText);
  // A signature that leaves out the status or the digest would vouch for any status or any body.
  for (const required of ["@status", "content-digest"]) {
    if (!components.includes(required)) throw new Refused(`the signature does not cover ${required}`);
  }
  const alg = params.get("alg");
  const kid = params.get("keyid");
  const created = params.get("created");
  if (alg !== "ed25519") throw new Refused(`signature alg is ${alg ?? "missing"}, expected ed25519`);
  if (typeof kid !== "string") throw new Refused("Signature-Input has no keyid");
  if (typeof created !== "number") throw new Refused("Signature-Input has no created time");

  const lines = components.map((name) => {
    if (name === "@status") return `"@status": ${response.status}`;
    // A derived component we do not know how to build: verifying a guess would prove nothing.
    if (name.startsWith("@"))
      throw new Refused(`the signature covers ${name}, which this verifier does not support`);
    const value = response.headers.get(name);
    if (value === null) throw new Refused(`the signature covers the header ${name}, which the answer lacks`);
    return `"${name}": ${value.trim()}`;
  });
  lines.push(`"@signature-params": ${paramsText}`);

  const jwk = await keys.find(kid);
  const publicKey = await crypto.subtle.importKey(
    "jwk",
    { kty: jwk.kty, crv: jwk.crv, x: jwk.x },
    { name: "Ed25519" },
    false,
    ["verify"],
  );
  const sig = byteSequence(dictionaryMember(signature, "depot"), "the depot Signature");
  const base = encoder.encode(lines.join("\n"));
  if (!(await crypto.subtle.verify("Ed25519", publicKey, sig, base))) {
    throw new Refused("the signature does not verify");
  }

  // The signature covers the Content-Digest header; only this ties it to the body we actually got.
  const digestHeader = response.headers.get("content-digest");
  if (digestHeader === null) throw new Refused("the answer has no Content-Digest");
  const claimed = byteSequence(dictionaryMember(digestHeader, "sha-256"), "the sha-256 Content-Digest");
  const actual = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  if (claimed.length !== actual.length || claimed.some((b, i) => b !== actual[i])) {
    throw new Refused("the body does not match its Content-Digest");
  }

  // A signed answer recorded yesterday stays signed; the clock bounds how long it can be replayed…
  const now = Math.floor(Date.now() / 1000);
  if (Math.abs(now - created) > MAX_SKEW_SECONDS) {
    throw new Refused(`the signature was created ${now - created} s ago (more than ${MAX_SKEW_SECONDS} s)`);
  }
  const expires = params.get("expires");
  if (typeof expires === "number" && expires <= now) throw new Refused("the signature has expired");

  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw new Refused("the signed body is not JSON");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new Refused("the signed body is not a JSON object");
  }
  const answer = { status: response.status, body: body as Record<string, unknown> };
  // …and the nonce makes it worthless: only an answer to this very request echoes it. (A heartbeat
  // takes no nonce: its answer only says the machine is alive, which the file and validate recheck.)
  if (nonce !== null && (response.status === 200 || response.status === 201) && answer.body.nonce !== nonce) {
    throw new Refused("the answer does not echo our nonce (a replayed answer?)");
  }
  return answer;
}

const normaliseKey = (key: string) => key.trim().toUpperCase();
const sameId = (a: unknown, b: string) =>
  typeof a === "string" && /^[0-9]+$/.test(a) && BigInt(a) === BigInt(b);

/** "VALID", or why not. Throws Refused when a VALID answer is about some other license. */
function outcome(answer: Answer, config: Config): string | null {
  const { status, body } = answer;
  if (status !== 200) return `HTTP ${status}: ${typeof body.message === "string" ? body.message : "error"}`;
  if (body.valid !== true || body.code !== "VALID")
    return typeof body.code === "string" ? body.code : "not valid";
  // The request itself is not signed: someone in the middle could swap in their own key, or drop
  // productId, and get depot to sign a genuine VALID for that. So the answer must name our license.
  const license = body.license as Record<string, unknown> | null;
  if (typeof license?.key !== "string" || normaliseKey(license.key) !== normaliseKey(config.key)) {
    throw new Refused("the answer is about another license key");
  }
  if (config.product !== undefined && !sameId(license.productId, config.product)) {
    throw new Refused("the answer is about another product");
  }
  if (config.fingerprint !== undefined) {
    const machine = body.machine as Record<string, unknown> | null | undefined;
    if (machine?.fingerprint !== config.fingerprint) throw new Refused("the answer is about another machine");
    if (machine.alive !== true) return "this machine is not alive";
  }
  return null;
}

// --- this machine (--fingerprint) -----------------------------------------------------------

/**
 * Activates this machine (201 new, 200 already active) and sends one heartbeat, each a signed answer
 * checked like validate's. Returns the machine's id. A real app sends heartbeats every
 * heartbeatSeconds while it runs; a 410 means the seat was lost and it must activate again.
 */
async function activateAndHeartbeat(config: Config, keys: KeySet, fingerprint: string): Promise<string> {
  const nonce = freshNonce();
  const platform = `${process.platform}-${process.arch}`;
  const activation = await verifyAnswer(
    await post(config, "/api/v1/licenses/activate", nonce, { fingerprint, name: "verify example", platform }),
    nonce,
    keys,
  );
  const { status, body } = activation;
  if (status !== 200 && status !== 201) {
    throw new Refused(`activate: HTTP ${status}: ${body.code ?? ""} ${body.message ?? ""}`.trim());
  }
  const machine = body.machine as Record<string, unknown> | undefined;
  const license = body.license as Record<string, unknown> | undefined;
  if (typeof license?.key !== "string" || normaliseKey(license.key) !== normaliseKey(config.key)) {
    throw new Refused("activate: the answer is about another license key");
  }
  if (typeof machine?.id !== "string" || machine.fingerprint !== fingerprint) {
    throw new Refused("activate: the answer is about another machine");
  }
  console.log(`machine: ${status === 201 ? "activated" : "already active"} (${machine.id})`);
  const beat = await verifyAnswer(
    await send(config, `${config.url}/api/v1/machines/${encodeURIComponent(machine.id)}/heartbeat`, {
      method: "POST",
      headers: { authorization: `License ${config.key}`, accept: "application/json" },
    }),
    null,
    keys,
  );
  const beaten = beat.body.machine as Record<string, unknown> | undefined;
  if (beat.status !== 200 || beaten?.id !== machine.id || beaten.alive !== true) {
    throw new Refused(
      `heartbeat: HTTP ${beat.status}: ${beat.body.code ?? beat.body.message ?? "not alive"}`,
    );
  }
  console.log(`heartbeat: signature and digest verified, alive since ${beaten.lastHeartbeatAt}`);
  return machine.id;
}

async function post(
  config: Config,
  path: string,
  nonce: string,
  extra: Record<string, string> = {},
): Promise<Response> {
  const body: Record<string, string> = { key: config.key, nonce, ...extra };
  if (config.product !== undefined && path !== "/api/v1/licenses/activate") body.productId = config.product;
  if (config.fingerprint !== undefined && path !== "/api/v1/licenses/activate")
    body.fingerprint = config.fingerprint;
  return send(config, `${config.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify(body),
  });
}

async function send(config: Config, url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
  } catch (error) {
    throw new Refused(`cannot reach ${config.url}: ${(error as Error).message}`);
  }
}

/** A nonce nobody can predict, so no answer can be prepared in advance. */
const freshNonce = () => btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(18))));

// --- the license file (offline) -------------------------------------------------------------

/** A file from another depot, or this one under another address: say which, and what the issuer is. */
function wrongIssuer(found: unknown, expected: string): string {
  return (
    `the file was issued by ${JSON.stringify(found)}, expected "${expected}" (the issuer is the depot's ` +
    "APP_URL: verify with the URL the server's APP_URL names, or set APP_URL to the address clients use)"
  );
}

/**
 * Verifies the license file with the keys we already hold, without the network: it is what lets the
 * software run when depot cannot be reached, so it must stand on its own signature.
 */
async function verifyLicenseFile(text: string, keys: KeySet, config: Config): Promise<Date> {
  const match = /-----BEGIN DEPOT LICENSE FILE-----([\s\S]*?)-----END DEPOT LICENSE FILE-----/.exec(text);
  if (!match?.[1]) throw new Refused("no DEPOT LICENSE FILE block");
  const token = match[1].replace(/\s+/g, "");
  let payload: Awaited<ReturnType<typeof jwtVerify>>["payload"];
  try {
    // typ keeps some other JWT depot's keys might sign from passing as a license file; issuer keeps
    // a file from another depot (same software, other vendor) from unlocking this one.
    // The answers' lookup rather than jose's own JWKS: an unknown kid gets the same "not pinned".
    const keyFor = ({ kid }: { kid?: string }) => {
      if (kid === undefined) throw new Refused("the header names no kid");
      return keys.cached(kid);
    };
    ({ payload } = await jwtVerify(token, keyFor, {
      algorithms: ["EdDSA"],
      typ: LICENSE_FILE_TYPE,
      issuer: config.url,
      requiredClaims: ["exp", "sub", "key"],
    }));
  } catch (error) {
    if (error instanceof JWTClaimValidationFailed && error.claim === "iss") {
      throw new Refused(wrongIssuer(error.payload.iss, config.url));
    }
    throw new Refused((error as Error).message);
  }
  // A genuine file for someone else's license would otherwise unlock ours.
  if (typeof payload.key !== "string" || normaliseKey(payload.key) !== normaliseKey(config.key)) {
    throw new Refused("the file is for another license key");
  }
  if (config.product !== undefined && !sameId(payload.product_id, config.product)) {
    throw new Refused("the file is for another product");
  }
  if (typeof payload.expires === "string" && Date.parse(payload.expires) <= Date.now()) {
    throw new Refused(`the license expired at ${payload.expires}`);
  }
  // A file bound to another machine (copied from it) must not unlock this one.
  if (config.fingerprint !== undefined && payload.fingerprint !== config.fingerprint) {
    throw new Refused(
      payload.fingerprint === undefined
        ? "the file is not bound to a machine"
        : "the file is bound to another machine",
    );
  }
  return new Date((payload.exp as number) * 1000);
}

/** Uses the file at config.licenseFile, or checks one out (a signed answer like any other) and writes it. */
async function obtainLicenseFile(config: Config, keys: KeySet): Promise<void> {
  if (existsSync(config.licenseFile)) {
    console.log(`license file: using ${config.licenseFile}`);
    return;
  }
  const nonce = freshNonce();
  let answer: Answer;
  let why: string | null;
  try {
    answer = await verifyAnswer(await post(config, "/api/v1/licenses/checkout", nonce), nonce, keys);
    why = outcome(answer, config);
  } catch (error) {
    throw error instanceof Refused ? new Refused(`checkout: ${error.message}`) : error;
  }
  if (why !== null) throw new Refused(`checkout: ${why}`);
  if (typeof answer.body.license_file !== "string")
    throw new Refused("checkout: no license_file in the answer");
  writeFileSync(config.licenseFile, answer.body.license_file);
  console.log(
    `license file: checked out (until ${answer.body.license_file_expires_at}), written to ${config.licenseFile}`,
  );
}

// --- main -----------------------------------------------------------------------------------

async function main(): Promise<number> {
  const config = readConfig();
  if (config.jwks === undefined) console.error(UNPINNED_WARNING);
  const keys = new KeySet(config.url, config.jwks);
  try {
    await keys.load();
  } catch (error) {
    console.log(`keys: INVALID (${(error as Error).message})`);
    return 1;
  }
  console.log(`keys: ${keys.keys.length} Ed25519 key(s) ${keys.source}`);

  if (config.fingerprint !== undefined) {
    try {
      await activateAndHeartbeat(config, keys, config.fingerprint);
    } catch (error) {
      if (!(error instanceof Refused)) throw error;
      console.log(`machine: INVALID (${error.message})`);
      return 1;
    }
  }

  let answerOk = false;
  try {
    const nonce = freshNonce();
    const answer = await verifyAnswer(await post(config, "/api/v1/licenses/validate", nonce), nonce, keys);
    // An error answer carries no nonce; it can only say "no", which anyone in the middle can do anyway.
    const checked = answer.status === 200 ? "signature, digest and nonce" : "signature and digest";
    console.log(`answer: ${checked} verified (HTTP ${answer.status})`);
    const why = outcome(answer, config);
    console.log(why === null ? "VALID" : `INVALID (${why})`);
    answerOk = why === null;
  } catch (error) {
    if (!(error instanceof Refused)) throw error;
    console.log(`INVALID (${error.message})`);
  }

  let fileOk = false;
  try {
    await obtainLicenseFile(config, keys);
    const until = await verifyLicenseFile(readFileSync(config.licenseFile, "utf8"), keys, config);
    console.log(`license file VALID until ${until.toISOString().replace(".000Z", "Z")}`);
    fileOk = true;
  } catch (error) {
    if (!(error instanceof Refused)) throw error;
    console.log(`license file INVALID (${error.message})`);
  }
  return answerOk && fileOk ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.log(`INVALID (${error instanceof Error ? error.message : String(error)})`);
    process.exit(1);
  },
);
