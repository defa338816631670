package io.github.depothq.depot;

import java.time.Duration;
import java.time.Instant;

/**
 * What {@link DepotClient#verifyLicenseFile(String, LicenseFileCheck)} holds a file to, beyond its
 * signature, issuer and product.
 *
 * @param key the license key the file must be for, or null not to check it
 * @param fingerprint the machine the file must be bound to, or null (a file without a fingerprint
 *     claim is refused when one is given)
 * @param now the time to check against, or null for the client's clock
 * @param grace how long after {@code exp} the file is still accepted (null: none)
 */
public record LicenseFileCheck(String key, String fingerprint, Instant now, Duration grace) {
  /** Signature, issuer, product and time only. */
  public static final LicenseFileCheck NONE = new LicenseFileCheck(null, null, null, null);

  public static LicenseFileCheck forKey(String key) {
    return new LicenseFileCheck(key, null, null, null);
  }

  public LicenseFileCheck withKey(String key) {
    return new LicenseFileCheck(key, fingerprint, now, grace);
  }

  public LicenseFileCheck withFingerprint(String fingerprint) {
    return new LicenseFileCheck(key, fingerprint, now, grace);
  }

  public LicenseFileCheck withNow(Instant now) {
    return new LicenseFileCheck(key, fingerprint, now, grace);
  }

  public LicenseFileCheck withGrace(Duration grace) {
    return new LicenseFileCheck(key, fingerprint, now, grace);
  }
}
