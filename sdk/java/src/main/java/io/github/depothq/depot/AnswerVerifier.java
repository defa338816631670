package io.github.depothq.depot;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.PublicKey;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks that an answer is depot's (sdk/README.md "What is checked, in this order"): the digest of
 * the exact body bytes, the one signature depot makes over {@code @status}, {@code content-type} and
 * {@code content-digest} by a trusted key, its freshness, and that the JSON body echoes the nonce.
 * Whether it is about what was asked (step 7) is each operation's own check.
 */
final class AnswerVerifier {
  private static final String COMPONENTS = "(\"@status\" \"content-type\" \"content-digest\")";
  private static final Pattern SIGNATURE_INPUT =
      Pattern.compile("^depot=(" + Pattern.quote(COMPONENTS) + "((?:;[a-z]+=(?:\"[^\"\\\\]*\"|-?[0-9]+)){3}))$");
  private static final Pattern PARAM = Pattern.compile(";([a-z]+)=(\"[^\"]*\"|-?[0-9]+)");
  private static final Pattern SIGNATURE = Pattern.compile("^depot=:([A-Za-z0-9+/]+={0,2}):$");
  private static final Pattern DIGEST = Pattern.compile("^sha-256=:([A-Za-z0-9+/]+={0,2}):$");

  private final KeySet keys;
  private final Clock clock;
  private final Duration maxSkew;

  AnswerVerifier(KeySet keys, Clock clock, Duration maxSkew) {
    this.keys = keys;
    this.clock = clock;
    this.maxSkew = maxSkew;
  }

  /** A signed answer that verified: its body parsed, and when it was signed. */
  record Checked(RawAnswer raw, Fields body, Instant created) {}

  /** Every check of a fresh answer to the request that carried {@code nonce}. */
  Checked verify(RawAnswer raw, String nonce) throws DepotException {
    Checked checked = signed(raw);
    long now = clock.instant().getEpochSecond();
    long created = checked.created().getEpochSecond();
    // A signed answer recorded yesterday stays signed; the clock bounds how long it can be replayed...
    if (Math.abs(now - created) > maxSkew.getSeconds()) {
      throw new UnverifiableException(now >= created
          ? "the signature was created " + (now - created) + " s ago (more than " + maxSkew.getSeconds() + " s)"
          : "the signature was created " + (created - now) + " s in the future (more than " + maxSkew.getSeconds() + " s)");
    }
    // ...and the nonce makes it worthless: only an answer to this very request echoes it.
    if (nonce != null) {
      Object echoed = checked.body().raw("nonce");
      boolean mustEcho = raw.ok() || echoed != null;
      if (mustEcho && !nonce.equals(echoed)) throw new UnverifiableException("the answer does not echo our nonce (a replayed answer?)");
    }
    return checked;
  }

  /**
   * Steps 1 to 4 and the JSON body, without the clock or a nonce: for a fresh answer (then
   * {@link #verify}) and for one kept earlier, whose age {@code status()} judges itself.
   */
  Checked signed(RawAnswer raw) throws DepotException {
    // Without this, anyone who can answer in depot's place (a hosts-file entry, a proxy) says "valid".
    if (raw.signatureInput() == null && raw.signature() == null) throw new UnverifiableException("the answer is not signed");
    byte[] body = raw.body();

    // 1. The digest: only this ties the signature (which covers the header) to the bytes we got.
    if (raw.contentDigest() == null) throw new UnverifiableException("the answer has no Content-Digest");
    Matcher digest = DIGEST.matcher(raw.contentDigest());
    if (!digest.matches()) throw new UnverifiableException("unsupported Content-Digest: " + raw.contentDigest());
    if (!MessageDigest.isEqual(base64(digest.group(1), "Content-Digest"), sha256(body))) {
      throw new UnverifiableException("the body does not match its Content-Digest");
    }

    // 2. Exactly the signature depot makes: other components would need another signature base,
    // and building the wrong one would make the check meaningless.
    if (raw.signatureInput() == null) throw new UnverifiableException("the answer has no Signature-Input");
    Matcher input = SIGNATURE_INPUT.matcher(raw.signatureInput());
    if (!input.matches()) throw new UnverifiableException("unsupported Signature-Input: " + raw.signatureInput());
    String params = input.group(1);
    String kid = null;
    String alg = null;
    Long created = null;
    Matcher p = PARAM.matcher(input.group(2));
    while (p.find()) {
      String value = p.group(2);
      boolean quoted = value.startsWith("\"");
      switch (p.group(1)) {
        case "keyid" -> kid = kid == null && quoted ? value.substring(1, value.length() - 1) : null;
        case "alg" -> alg = alg == null && quoted ? value.substring(1, value.length() - 1) : "repeated";
        case "created" -> created = created == null && !quoted ? parseLong(value) : null;
        default -> throw new UnverifiableException("unsupported Signature-Input parameter ;" + p.group(1));
      }
    }
    if (kid == null || created == null || alg == null) throw new UnverifiableException("unsupported Signature-Input: " + raw.signatureInput());
    if (!"ed25519".equals(alg)) throw new UnverifiableException("signature alg is " + alg + ", expected ed25519");

    // 3. A trusted key.
    PublicKey key = keys.find(kid);

    // 4. The signature over the base RFC 9421 §2.5 builds.
    if (raw.signature() == null) throw new UnverifiableException("the answer has no Signature");
    Matcher sig = SIGNATURE.matcher(raw.signature());
    if (!sig.matches()) throw new UnverifiableException("unsupported Signature: " + raw.signature());
    if (raw.contentType() == null) throw new UnverifiableException("the answer has no Content-Type");
    String base = "\"@status\": " + raw.status() + "\n"
        + "\"content-type\": " + raw.contentType() + "\n"
        + "\"content-digest\": " + raw.contentDigest() + "\n"
        + "\"@signature-params\": " + params;
    if (!KeySet.verifies(key, base.getBytes(StandardCharsets.UTF_8), base64(sig.group(1), "Signature"))) {
      throw new UnverifiableException("the signature does not verify");
    }

    Fields fields;
    try {
      fields = Fields.of(Json.parse(body), "the answer");
    } catch (Json.JsonException e) {
      throw new UnverifiableException("the signed body is not JSON (" + e.getMessage() + ")");
    }
    return new Checked(raw, fields, Instant.ofEpochSecond(created));
  }

  private static byte[] base64(String text, String what) throws UnverifiableException {
    try {
      return Base64.getDecoder().decode(text);
    } catch (IllegalArgumentException e) {
      throw new UnverifiableException("the " + what + " is not base64");
    }
  }

  private static Long parseLong(String value) {
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      return null;
    }
  }

  static byte[] sha256(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }
}
