package io.github.depothq.depot;

import java.time.Instant;
import java.util.Map;

/**
 * The claims of a license file that verified.
 *
 * @param licenseId the license's id ({@code sub})
 * @param fingerprint null for a file not bound to a machine
 * @param notBefore null when the file has no {@code nbf}
 * @param licenseExpires the license's own expiry, null when it never expires
 * @param claims every claim, as parsed
 */
public record LicenseFile(
    String issuer,
    String licenseId,
    String key,
    String productId,
    String userId,
    String fingerprint,
    String machineId,
    Instant issuedAt,
    Instant notBefore,
    Instant expiresAt,
    Instant licenseExpires,
    Map<String, Object> claims) {}
