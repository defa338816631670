package io.github.depothq.depot;

import java.net.http.HttpHeaders;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An answer as it came: its status, the headers its signature covers or that a refusal needs, and
 * the exact bytes of its body (the digest is checked over these, never over a re-serialisation). It
 * is also what {@code status()} keeps, so a kept answer is verified again when read back.
 */
record RawAnswer(
    int status,
    String contentType,
    String contentDigest,
    String signatureInput,
    String signature,
    String retryAfter,
    byte[] body) {

  static RawAnswer of(int status, HttpHeaders headers, byte[] body) {
    return new RawAnswer(status, header(headers, "content-type"), header(headers, "content-digest"),
        header(headers, "signature-input"), header(headers, "signature"), header(headers, "retry-after"), body);
  }

  /** All values of a header joined as RFC 9421 §2.1 says, or null when absent. */
  static String header(HttpHeaders headers, String name) {
    List<String> values = headers.allValues(name);
    if (values.isEmpty()) return null;
    return String.join(", ", values.stream().map(String::trim).toList());
  }

  boolean ok() {
    return status >= 200 && status < 300;
  }

  /** For the state directory: JSON with the body in base64. */
  String toJson() {
    Map<String, Object> map = new LinkedHashMap<>();
    map.put("status", (long) status);
    map.put("content-type", contentType);
    map.put("content-digest", contentDigest);
    map.put("signature-input", signatureInput);
    map.put("signature", signature);
    map.put("body", Base64.getEncoder().encodeToString(body));
    return Json.write(map);
  }

  static RawAnswer fromJson(byte[] text) throws UnverifiableException {
    try {
      Fields f = Fields.of(Json.parse(text), "the kept answer");
      return new RawAnswer((int) f.integer("status"), f.optString("content-type"), f.optString("content-digest"),
          f.optString("signature-input"), f.optString("signature"), null, Base64.getDecoder().decode(f.string("body")));
    } catch (Json.JsonException | IllegalArgumentException e) {
      throw new UnverifiableException("the kept answer is damaged (" + e.getMessage() + ")");
    }
  }
}
