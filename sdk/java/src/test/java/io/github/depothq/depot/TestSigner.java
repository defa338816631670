package io.github.depothq.depot;

import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import java.security.interfaces.EdECPublicKey;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An Ed25519 key made in the test, signing answers and license files the way depot does, so a test
 * can pin it and break exactly one thing at a time.
 */
final class TestSigner {
  final KeyPair pair;
  final String x;
  final String kid;

  TestSigner() {
    try {
      pair = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    x = jwkX((EdECPublicKey) pair.getPublic());
    kid = "test-" + x.substring(0, 8);
  }

  /** RFC 8032's encoding: y little-endian, x's parity in the top bit of the last byte. */
  static String jwkX(EdECPublicKey key) {
    byte[] big = key.getPoint().getY().toByteArray();
    byte[] little = new byte[32];
    for (int i = 0; i < big.length && i < 32; i++) little[i] = big[big.length - 1 - i];
    if (key.getPoint().isXOdd()) little[31] |= (byte) 0x80;
    return Base64.getUrlEncoder().withoutPadding().encodeToString(little);
  }

  String jwks() {
    return "{\"keys\":[{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"x\":\"" + x + "\",\"kid\":\"" + kid + "\",\"alg\":\"EdDSA\",\"use\":\"sig\"}]}";
  }

  byte[] sign(byte[] data) {
    try {
      Signature s = Signature.getInstance("Ed25519");
      s.initSign(pair.getPrivate());
      s.update(data);
      return s.sign();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** The three headers depot adds to an answer. */
  Map<String, String> headers(int status, String contentType, byte[] body, long created, String keyid) {
    String digest = "sha-256=:" + Base64.getEncoder().encodeToString(AnswerVerifier.sha256(body)) + ":";
    String params = "(\"@status\" \"content-type\" \"content-digest\");created=" + created + ";keyid=\"" + keyid + "\";alg=\"ed25519\"";
    String base = "\"@status\": " + status + "\n\"content-type\": " + contentType + "\n\"content-digest\": " + digest
        + "\n\"@signature-params\": " + params;
    Map<String, String> h = new LinkedHashMap<>();
    h.put("Content-Type", contentType);
    h.put("Content-Digest", digest);
    h.put("Signature-Input", "depot=" + params);
    h.put("Signature", "depot=:" + Base64.getEncoder().encodeToString(sign(base.getBytes(StandardCharsets.UTF_8))) + ":");
    return h;
  }

  LocalServer.Reply reply(int status, Object json) {
    byte[] body = Json.write(json).getBytes(StandardCharsets.UTF_8);
    return new LocalServer.Reply(status, headers(status, "application/json", body, Instant.now().getEpochSecond(), kid), body);
  }

  /** A license file: the armour around a compact JWS of {@code header} and {@code claims}. */
  String licenseFile(Map<String, Object> header, Map<String, Object> claims) {
    Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
    String h = b64.encodeToString(Json.write(header).getBytes(StandardCharsets.UTF_8));
    String p = b64.encodeToString(Json.write(claims).getBytes(StandardCharsets.UTF_8));
    String jws = h + "." + p + "." + b64.encodeToString(sign((h + "." + p).getBytes(StandardCharsets.US_ASCII)));
    return "-----BEGIN DEPOT LICENSE FILE-----\n" + jws.replaceAll("(.{64})", "$1\n") + "\n-----END DEPOT LICENSE FILE-----\n";
  }

  /** The file with one character in the middle of its payload changed, re-armoured. */
  static String tamperPayload(String file) {
    String jws = file.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s+", "");
    String[] parts = jws.split("\\.");
    char[] payload = parts[1].toCharArray();
    int i = payload.length / 2;
    payload[i] = payload[i] == 'A' ? 'B' : 'A';
    String changed = parts[0] + "." + new String(payload) + "." + parts[2];
    return "-----BEGIN DEPOT LICENSE FILE-----\n" + changed.replaceAll("(.{64})", "$1\n") + "\n-----END DEPOT LICENSE FILE-----\n";
  }

  Map<String, Object> fileHeader() {
    Map<String, Object> h = new LinkedHashMap<>();
    h.put("alg", "EdDSA");
    h.put("typ", "depot-license+jwt");
    h.put("kid", kid);
    return h;
  }
}
