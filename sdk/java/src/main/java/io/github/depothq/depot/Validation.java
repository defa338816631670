package io.github.depothq.depot;

import java.time.Instant;

/**
 * A verified answer of validate or checkout. Not valid is a result, not an error: {@code code} says
 * why ({@code VALID}, {@code NOT_FOUND}, {@code REVOKED}, {@code EXPIRED}, {@code PRODUCT_MISMATCH},
 * {@code FINGERPRINT_REQUIRED}, {@code NOT_ACTIVATED}, {@code HEARTBEAT_DEAD}, {@code TOO_MANY_IPS};
 * a code this version does not know is kept as it is).
 *
 * @param checkedAt depot's time of the check
 * @param license null for NOT_FOUND
 * @param machines for a license with maxMachines, or when a fingerprint was given; else null
 * @param machine when a fingerprint was given: its machine, or null if it is not activated
 * @param licenseFile checkout only, when valid: the signed license file's text (else null)
 * @param licenseFileExpiresAt checkout only: when that file expires
 */
public record Validation(
    boolean valid,
    String code,
    String detail,
    Instant checkedAt,
    License license,
    Counts ips,
    Counts machines,
    Machine machine,
    String licenseFile,
    Instant licenseFileExpiresAt) {

  static Validation from(Fields f) throws UnverifiableException {
    Fields license = f.optObject("license");
    return new Validation(
        f.bool("valid"),
        f.string("code"),
        f.optString("detail"),
        f.optInstant("ts"),
        license == null ? null : License.from(license),
        Counts.from(f.optObject("ips")),
        Counts.from(f.optObject("machines")),
        Machine.from(f.optObject("machine")),
        f.optString("license_file"),
        f.optInstant("license_file_expires_at"));
  }
}
