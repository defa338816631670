package io.github.depothq.depot;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.PublicKey;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Collections;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Verifies a license file offline, with the keys already held: it is what lets the app run when depot
 * cannot be reached, so it must stand on its own signature.
 */
final class LicenseFiles {
  static final String TYPE = "depot-license+jwt";
  private static final Pattern ARMOUR =
      Pattern.compile("-----BEGIN DEPOT LICENSE FILE-----(.*?)-----END DEPOT LICENSE FILE-----", Pattern.DOTALL);
  private static final Pattern COMPACT_JWS = Pattern.compile("^([A-Za-z0-9_-]+)\\.([A-Za-z0-9_-]+)\\.([A-Za-z0-9_-]+)$");

  private LicenseFiles() {}

  /**
   * @param issuer the server URL without a trailing slash: the file's {@code iss} must be it
   * @param productId the product the file must be for
   */
  static LicenseFile verify(String text, KeySet keys, String issuer, String productId, String key, String fingerprint,
      Instant now, Duration grace, Duration maxSkew) throws UnverifiableException {
    if (text == null) throw new UnverifiableException("no license file");
    Matcher armour = ARMOUR.matcher(text);
    if (!armour.find()) throw new UnverifiableException("no DEPOT LICENSE FILE block");
    Matcher jws = COMPACT_JWS.matcher(armour.group(1).replaceAll("\\s+", ""));
    if (!jws.matches()) throw new UnverifiableException("not a compact JWS");

    Fields header = object(jws.group(1), "header");
    // The header is not trusted yet, but it picks the key and the algorithm: allow only ours.
    if (!"EdDSA".equals(header.raw("alg"))) throw new UnverifiableException("alg is " + header.raw("alg") + ", expected EdDSA");
    // typ keeps some other JWT depot's keys might sign from passing as a license file.
    if (!TYPE.equals(header.raw("typ"))) throw new UnverifiableException("typ is " + header.raw("typ") + ", expected " + TYPE);
    if (header.has("crit")) throw new UnverifiableException("the header has critical extensions this verifier does not know");
    if (!(header.raw("kid") instanceof String kid)) throw new UnverifiableException("the header names no kid");
    PublicKey publicKey = keys.cached(kid);
    byte[] signingInput = (jws.group(1) + "." + jws.group(2)).getBytes(StandardCharsets.US_ASCII);
    if (!KeySet.verifies(publicKey, signingInput, base64url(jws.group(3)))) {
      throw new UnverifiableException("signature verification failed");
    }

    Fields claims = object(jws.group(2), "payload");
    // A file from another depot (same software, another vendor) must not unlock this one.
    Object iss = claims.raw("iss");
    if (!issuer.equals(iss)) {
      String found = iss instanceof String s ? "\"" + s + "\"" : String.valueOf(iss);
      throw new UnverifiableException("the file was issued by " + found + ", expected \"" + issuer + "\" (the issuer is the depot's "
          + "APP_URL: verify with the URL the server's APP_URL names, or set APP_URL to the address clients use)");
    }
    Instant exp = claims.optEpochSeconds("exp");
    Instant iat = claims.optEpochSeconds("iat");
    Instant nbf = claims.optEpochSeconds("nbf");
    if (exp == null) throw new UnverifiableException("the file has no exp");
    if (iat == null) throw new UnverifiableException("the file has no iat");
    Instant latest = now.plus(maxSkew);
    if (nbf != null && nbf.isAfter(latest)) throw new UnverifiableException("the file is not valid before " + nbf);
    if (iat.isAfter(latest)) throw new UnverifiableException("the file was issued in the future (" + iat + ")");
    Duration allowed = grace == null ? Duration.ZERO : grace;
    if (!exp.plus(allowed).isAfter(now)) {
      throw new UnverifiableException("the file expired at " + exp + (allowed.isZero() ? "" : " (grace " + allowed.getSeconds() + " s)"));
    }
    String claimedProduct = claims.optId("product_id");
    if (!sameId(claimedProduct, productId)) throw new UnverifiableException("the file is for another product");
    // A genuine file for someone else's license would otherwise unlock ours.
    String claimedKey = claims.optString("key");
    if (key != null && (claimedKey == null || !normaliseKey(claimedKey).equals(normaliseKey(key)))) {
      throw new UnverifiableException("the file is for another license key");
    }
    // A file bound to another machine (copied from it) must not unlock this one.
    String claimedFingerprint = claims.optString("fingerprint");
    if (fingerprint != null && !fingerprint.equals(claimedFingerprint)) {
      throw new UnverifiableException(claimedFingerprint != null ? "the file is bound to another machine" : "the file is not bound to a machine");
    }
    return new LicenseFile(
        (String) iss,
        claims.optString("sub"),
        claimedKey,
        claimedProduct,
        claims.optId("user_id"),
        claimedFingerprint,
        claims.optString("machine_id"),
        iat,
        nbf,
        exp,
        claims.optInstant("expires"),
        Collections.unmodifiableMap(claims.map()));
  }

  static String normaliseKey(String key) {
    return key.trim().toUpperCase(Locale.ROOT);
  }

  /** Two ids as depot writes them (strings of digits): equal as numbers. */
  static boolean sameId(String a, String b) {
    if (a == null || b == null || !a.matches("[0-9]{1,40}") || !b.matches("[0-9]{1,40}")) return false;
    return new BigInteger(a).equals(new BigInteger(b));
  }

  private static byte[] base64url(String text) throws UnverifiableException {
    try {
      return Base64.getUrlDecoder().decode(text);
    } catch (IllegalArgumentException e) {
      throw new UnverifiableException("not base64url");
    }
  }

  private static Fields object(String part, String what) throws UnverifiableException {
    try {
      return Fields.of(Json.parse(base64url(part)), "the " + what);
    } catch (Json.JsonException e) {
      throw new UnverifiableException("the " + what + " is not JSON (" + e.getMessage() + ")");
    }
  }
}
