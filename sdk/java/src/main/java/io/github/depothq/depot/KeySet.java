package io.github.depothq.depot;

import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.EdECPoint;
import java.security.spec.EdECPublicKeySpec;
import java.security.spec.NamedParameterSpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * depot's public keys, by kid. Pinned (the JWKS shipped with the app): only those, ever — a server
 * that hands out its own keys could vouch for anything it says. Fetched ({@code fetchJwks} without a
 * pinned set): from the server at first use, and once more when an answer names a kid not seen yet
 * (at most once a minute).
 */
final class KeySet {
  /** Fetched keys: how often a kid still unknown after its refetch may send us to the server again. */
  static final Duration REFETCH_INTERVAL = Duration.ofSeconds(60);

  interface Fetcher {
    byte[] jwks() throws DepotException;
  }

  private final Map<String, PublicKey> pinned;
  private final String pinnedIn;
  private final Fetcher fetcher;
  private final Clock clock;
  private Map<String, PublicKey> fetched;
  private Instant fetchedAt;
  /** The unknown kids already fetched for: a rotated-in key is found at once, a made-up kid costs one fetch a minute. */
  private final java.util.Set<String> lookedUp = new java.util.HashSet<>();

  /** @param pinnedIn where the pinned set came from (a path), for messages; or null */
  private KeySet(Map<String, PublicKey> pinned, String pinnedIn, Fetcher fetcher, Clock clock) {
    this.pinned = pinned;
    this.pinnedIn = pinnedIn;
    this.fetcher = fetcher;
    this.clock = clock;
  }

  static KeySet pinned(String jwksText, String pinnedIn) throws UnverifiableException {
    return new KeySet(parse(jwksText.getBytes(java.nio.charset.StandardCharsets.UTF_8)), pinnedIn, null, null);
  }

  static KeySet fetched(Fetcher fetcher, Clock clock) {
    return new KeySet(null, null, fetcher, clock);
  }

  boolean isPinned() {
    return pinned != null;
  }

  /** How many keys are trusted now (fetched keys: 0 before the first fetch). */
  synchronized int size() {
    return pinned != null ? pinned.size() : fetched == null ? 0 : fetched.size();
  }

  /** Fetched keys: fetch them now unless held already. */
  synchronized void load() throws DepotException {
    if (pinned == null && fetched == null) refetch();
  }

  /** The key named {@code kid}, fetching (unpinned) when it is not known yet. */
  synchronized PublicKey find(String kid) throws DepotException {
    if (pinned != null) return cached(kid);
    if (fetched == null) {
      refetch();
    } else if (!fetched.containsKey(kid) && (lookedUp.add(kid) || mayRefetch())) {
      if (lookedUp.size() > 100) lookedUp.clear();
      refetch();
    }
    return cached(kid);
  }

  /** Only the keys held already: the offline check never goes to the network. */
  synchronized PublicKey cached(String kid) throws UnverifiableException {
    Map<String, PublicKey> keys = pinned != null ? pinned : fetched == null ? Map.of() : fetched;
    PublicKey key = keys.get(kid);
    if (key != null) return key;
    // Pinned, an unknown kid is a key depot never shipped to us: exactly what a fake server signs with.
    if (pinned != null) {
      throw new UnverifiableException("the key \"" + kid + "\" is not pinned" + (pinnedIn == null ? "" : " (not in " + pinnedIn + ")"));
    }
    throw new UnverifiableException("no published key has keyid \"" + kid + "\"");
  }

  private boolean mayRefetch() {
    return fetchedAt == null || !clock.instant().isBefore(fetchedAt.plus(REFETCH_INTERVAL));
  }

  private void refetch() throws DepotException {
    fetchedAt = clock.instant();
    fetched = parse(fetcher.jwks());
  }

  /** The Ed25519 signing keys of a JWKS; anything else in it is skipped: nothing else may vouch for an answer. */
  static Map<String, PublicKey> parse(byte[] jwks) throws UnverifiableException {
    Fields set;
    try {
      set = Fields.of(Json.parse(jwks), "the JWKS");
    } catch (Json.JsonException e) {
      throw new UnverifiableException("the JWKS is not JSON (" + e.getMessage() + ")");
    }
    if (!(set.raw("keys") instanceof List<?> list)) throw new UnverifiableException("the JWKS has no keys array");
    Map<String, PublicKey> keys = new LinkedHashMap<>();
    for (Object item : list) {
      if (!(item instanceof Map<?, ?> jwk)) continue;
      if (!"OKP".equals(jwk.get("kty")) || !"Ed25519".equals(jwk.get("crv"))) continue;
      if (jwk.get("alg") != null && !"EdDSA".equals(jwk.get("alg"))) continue;
      if (jwk.get("use") != null && !"sig".equals(jwk.get("use"))) continue;
      if (jwk.get("kid") instanceof String kid && jwk.get("x") instanceof String x) keys.put(kid, ed25519Key(x));
    }
    if (keys.isEmpty()) throw new UnverifiableException("the JWKS has no Ed25519 signing key");
    return keys;
  }

  /**
   * A JWK's {@code x} (RFC 8032: y little-endian, the top bit of the last byte x's parity) as a Java
   * key, which wants y as a big-endian number and the parity apart.
   */
  static PublicKey ed25519Key(String x) throws UnverifiableException {
    byte[] raw;
    try {
      raw = Base64.getUrlDecoder().decode(x);
    } catch (IllegalArgumentException e) {
      throw new UnverifiableException("a JWKS key's x is not base64url");
    }
    if (raw.length != 32) throw new UnverifiableException("a JWKS key's x is not 32 bytes");
    boolean xOdd = (raw[31] & 0x80) != 0;
    raw[31] &= 0x7f;
    for (int i = 0, j = raw.length - 1; i < j; i++, j--) {
      byte b = raw[i];
      raw[i] = raw[j];
      raw[j] = b;
    }
    try {
      EdECPoint point = new EdECPoint(xOdd, new BigInteger(1, raw));
      return KeyFactory.getInstance("Ed25519").generatePublic(new EdECPublicKeySpec(NamedParameterSpec.ED25519, point));
    } catch (GeneralSecurityException e) {
      throw new UnverifiableException("a JWKS key is not a usable Ed25519 key: " + e.getMessage());
    }
  }

  static boolean verifies(PublicKey key, byte[] data, byte[] signature) {
    try {
      Signature verifier = Signature.getInstance("Ed25519");
      verifier.initVerify(key);
      verifier.update(data);
      return verifier.verify(signature);
    } catch (GeneralSecurityException e) {
      return false; // a malformed signature is a failed one
    }
  }
}
