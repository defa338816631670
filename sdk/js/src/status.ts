import type { Core } from "./core.js";
import { type DepotError, RefusedError, UnreachableError, UnverifiableError } from "./errors.js";
import { verifyLicenseFile } from "./license-file.js";
import { keptLicenseFile, keptValidation, licenseFileContext, validate } from "./licenses.js";
import type { Status } from "./types.js";

/**
 * validate, and when depot cannot be reached (or its answer cannot be verified) what is kept, newest
 * first: the last verified validation younger than offlineGrace, then the license file last checked
 * out if it verifies now, else not valid (sdk/README.md, "status()").
 */
export async function status(core: Core, key: string, fingerprint: string | undefined): Promise<Status> {
  let error: DepotError;
  try {
    const validation = await validate(core, key, fingerprint === undefined ? {} : { fingerprint });
    return { ...result(validation.valid, validation.code, "online", validation.signedAt), validation };
  } catch (thrown) {
    // depot said no (a 422 for a malformed key): that is an answer, and it is online.
    if (thrown instanceof RefusedError)
      return { ...result(false, thrown.code, "online", core.settings.clock()), error: thrown };
    if (!(thrown instanceof UnreachableError || thrown instanceof UnverifiableError)) throw thrown;
    error = thrown;
  }

  const validation = await keptValidation(core, key, fingerprint).catch(() => null);
  if (validation !== null) {
    return { ...result(validation.valid, validation.code, "cache", validation.signedAt), error, validation };
  }
  const text = await keptLicenseFile(core, key, fingerprint);
  if (text !== null) {
    const options = {
      key,
      now: core.settings.clock(),
      ...(fingerprint === undefined ? {} : { fingerprint }),
    };
    const licenseFile = await verifyLicenseFile(licenseFileContext(core), text, options).catch(() => null);
    if (licenseFile !== null) {
      return { ...result(true, "VALID", "licenseFile", licenseFile.issuedAt), error, licenseFile };
    }
  }
  const code = error instanceof UnreachableError ? "UNREACHABLE" : "UNVERIFIABLE";
  // When depot last said anything about this key, however long ago (null: never, as far as is kept).
  const last = await keptValidation(core, key, fingerprint, Number.POSITIVE_INFINITY).catch(() => null);
  return { ...result(false, code, "none", last?.signedAt ?? null), error };
}

const result = (valid: boolean, code: string, source: Status["source"], checkedAt: Date | null) => ({
  valid,
  code,
  source,
  checkedAt,
});
