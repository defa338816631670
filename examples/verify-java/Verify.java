import java.io.IOException;
import java.math.BigInteger;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.MessageDigest;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.spec.EdECPoint;
import java.security.spec.EdECPublicKeySpec;
import java.security.spec.NamedParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks a depot license the way shipped software should: every answer from the server must carry
 * depot's Ed25519 signature (RFC 9421 over an RFC 9530 digest of the body), and the offline license
 * file must be a JWS signed by the same keys. Java 17+, standard library only.
 *
 * <pre>
 *   java examples/verify-java/Verify.java &lt;DEPOT_URL&gt; &lt;LICENSE_KEY&gt; [--product ID] [--license-file PATH]
 *       [--jwks PATH] [--fingerprint FP]
 * </pre>
 *
 * --jwks pins depot's keys: they are read from that file (the JWKS depot serves at
 * /.well-known/jwks.json, shipped with the software) and never fetched.
 *
 * --fingerprint binds the license to this machine: it is activated first (POST /api/v1/licenses/activate),
 * validated with its fingerprint, sends one heartbeat, and the license file must be bound to it.
 *
 * DEPOT_URL and LICENSE_KEY may come from the environment instead. Exit 0: the answer verified, it
 * said VALID and the license file verified; 1: anything else; 2: usage error.
 *
 * <p>This file is plain ASCII on purpose: Java 17 reads sources in the platform encoding, which is
 * US-ASCII where no locale is set (a CI container), and would refuse anything else.
 */
public final class Verify {
  static final String USAGE =
      "usage: verify <DEPOT_URL> <LICENSE_KEY> [--product ID] [--license-file PATH] [--jwks PATH] [--fingerprint FP]\n"
          + "       (DEPOT_URL and LICENSE_KEY may also come from the environment)";
  static final String DEFAULT_LICENSE_FILE = "depot-license.lic";
  static final String LICENSE_FILE_TYPE = "depot-license+jwt";
  /** How far {@code created} may be from our clock. */
  static final long MAX_SKEW_SECONDS = 300;
  static final String UNPINNED_WARNING =
      "warning: keys from the server itself only stop a fake that copies depot's keys; shipped software should pin them with --jwks";

  static final HttpClient HTTP =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(10))
          .build();

  /** A check that failed: the license must not be trusted. */
  static final class Refused extends Exception {
    private static final long serialVersionUID = 1L;

    Refused(String message) {
      super(message);
    }
  }

  static final class UsageError extends Exception {
    private static final long serialVersionUID = 1L;

    UsageError(String message) {
      super(message);
    }
  }

  /** {@code jwks}: the pinned key set's file, or null to fetch the keys from the server. */
  /** {@code fingerprint}: this machine's, when the license is to be bound to it (else null). */
  record Config(String url, String key, String product, Path licenseFile, Path jwks, String fingerprint) {}

  record Answer(int status, Map<String, Object> body) {}

  public static void main(String[] args) {
    int code;
    try {
      code = run(readConfig(args));
    } catch (UsageError e) {
      System.err.println(e.getMessage() + "\n" + USAGE);
      code = 2;
    }
    System.exit(code);
  }

  // --- arguments ------------------------------------------------------------------------------

  static Config readConfig(String[] args) throws UsageError {
    List<String> positionals = new ArrayList<>();
    String product = null;
    String licenseFile = null;
    String jwks = null;
    String fingerprint = null;
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      String name = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
      if (name.equals("--product") || name.equals("--license-file") || name.equals("--jwks")
          || name.equals("--fingerprint")) {
        String value;
        if (arg.contains("=")) value = arg.substring(arg.indexOf('=') + 1);
        else if (i + 1 < args.length) value = args[++i];
        else throw new UsageError("option " + name + " needs a value");
        switch (name) {
          case "--product" -> product = value;
          case "--license-file" -> licenseFile = value;
          case "--fingerprint" -> fingerprint = value;
          default -> jwks = value;
        }
      } else if (arg.equals("--help") || arg.equals("-h")) {
        throw new UsageError("verifies depot's signed license answers and an offline license file");
      } else if (arg.startsWith("-")) {
        throw new UsageError("unknown option " + arg);
      } else {
        positionals.add(arg);
      }
    }
    if (positionals.size() > 2) throw new UsageError("too many arguments: " + positionals.subList(2, positionals.size()));
    String url = positionals.size() > 0 ? positionals.get(0) : orEmpty(System.getenv("DEPOT_URL"));
    String key = positionals.size() > 1 ? positionals.get(1) : orEmpty(System.getenv("LICENSE_KEY"));
    url = url.replaceAll("/+$", "");
    if (!url.matches("^https?://[^/].*")) throw new UsageError("DEPOT_URL must be an http(s) URL, got \"" + url + "\"");
    if (key.isBlank()) throw new UsageError("LICENSE_KEY is missing");
    if (product != null && !product.matches("[0-9]+")) {
      throw new UsageError("--product must be a numeric id, got \"" + product + "\"");
    }
    if (licenseFile != null && licenseFile.isEmpty()) throw new UsageError("--license-file needs a path");
    if (jwks != null && jwks.isEmpty()) throw new UsageError("--jwks needs a path");
    // The server refuses control characters itself (422), which this example then reports.
    if (fingerprint != null && (fingerprint.isEmpty() || fingerprint.length() > 255)) {
      throw new UsageError("--fingerprint must be 1 to 255 characters");
    }
    return new Config(url, key, product, Path.of(licenseFile != null ? licenseFile : DEFAULT_LICENSE_FILE),
        jwks != null ? Path.of(jwks) : null, fingerprint);
  }

  static String orEmpty(String s) {
    return s == null ? "" : s;
  }

  // --- keys -----------------------------------------------------------------------------------

  /**
   * depot's keys. Pinned (--jwks): only those in the file shipped with the software, because a server
   * that hands out its own keys can vouch for anything it says. Otherwise fetched from the server, and
   * refetched at most once, when an answer names a key we have not seen.
   */
  static final class KeySet {
    final String url;
    final Path pinned;
    final Map<String, PublicKey> keys = new LinkedHashMap<>();
    boolean refetched;

    KeySet(String url, Path pinned) {
      this.url = url;
      this.pinned = pinned;
    }

    /** Where the keys come from, for the output. */
    String source() {
      return pinned == null ? "from " + url + "/.well-known/jwks.json" : "pinned in " + pinned;
    }

    void load() throws Refused {
      Object jwks = pinned == null ? fetch() : read(pinned);
      if (!(jwks instanceof Map<?, ?> set) || !(set.get("keys") instanceof List<?> list)) {
        throw new Refused("the JWKS has no keys array");
      }
      keys.clear();
      for (Object item : list) {
        // Anything but an Ed25519 signing key is skipped: nothing else may vouch for an answer.
        if (!(item instanceof Map<?, ?> jwk)) continue;
        if (!"OKP".equals(jwk.get("kty")) || !"Ed25519".equals(jwk.get("crv"))) continue;
        if (jwk.get("alg") != null && !"EdDSA".equals(jwk.get("alg"))) continue;
        if (jwk.get("use") != null && !"sig".equals(jwk.get("use"))) continue;
        if (jwk.get("kid") instanceof String kid && jwk.get("x") instanceof String x) keys.put(kid, ed25519Key(x));
      }
      if (keys.isEmpty()) throw new Refused("the JWKS has no Ed25519 signing key");
    }

    static Object read(Path path) throws Refused {
      String text;
      try {
        text = Files.readString(path);
      } catch (IOException e) {
        throw new Refused("cannot read " + path + ": " + e);
      }
      try {
        return Json.parse(text);
      } catch (Refused e) {
        throw new Refused(path + " is not JSON (" + e.getMessage() + ")");
      }
    }

    Object fetch() throws Refused {
      String where = url + "/.well-known/jwks.json";
      try {
        HttpResponse<byte[]> response =
            HTTP.send(HttpRequest.newBuilder(URI.create(where)).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        if (response.statusCode() != 200) throw new Refused("cannot fetch " + where + ": HTTP " + response.statusCode());
        return Json.parse(utf8(response.body()));
      } catch (IOException | InterruptedException e) {
        throw new Refused("cannot fetch " + where + ": " + e);
      }
    }

    /**
     * The key named {@code kid}. Fetched keys: a new kid may be a key rotated in since we fetched, so
     * look once more. Pinned keys: never, the server does not get to add one.
     */
    PublicKey find(String kid) throws Refused {
      if (!keys.containsKey(kid) && pinned == null && !refetched) {
        refetched = true;
        load();
      }
      return cached(kid);
    }

    /** Only the keys we already hold: for the offline check, and whenever the keys are pinned. */
    PublicKey cached(String kid) throws Refused {
      PublicKey key = keys.get(kid);
      if (key != null) return key;
      // Pinned, an unknown kid is a key depot never shipped to us: exactly what a fake server signs with.
      if (pinned != null) throw new Refused("the key \"" + kid + "\" is not pinned (not in " + pinned + ")");
      throw new Refused("no published key has keyid \"" + kid + "\"");
    }
  }

  /**
   * A JWK's {@code x} (RFC 8032 encoding: y little-endian, the top bit of the last byte is x's
   * parity) as a Java public key, which wants y as a big-endian number and the parity apart.
   */
  static PublicKey ed25519Key(String x) throws Refused {
    byte[] raw;
    try {
      raw = Base64.getUrlDecoder().decode(x);
    } catch (IllegalArgumentException e) {
      throw new Refused("a JWKS key's x is not base64url");
    }
    if (raw.length != 32) throw new Refused("a JWKS key's x is not 32 bytes");
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
      throw new Refused("a JWKS key is not a usable Ed25519 key: " + e.getMessage());
    }
  }

  static boolean ed25519Verifies(PublicKey key, byte[] data, byte[] signature) {
    try {
      Signature verifier = Signature.getInstance("Ed25519");
      verifier.initVerify(key);
      verifier.update(data);
      return verifier.verify(signature);
    } catch (GeneralSecurityException e) {
      return false; // a malformed signature is a failed one
    }
  }

  // --- signed answers (RFC 9421 + RFC 9530) ---------------------------------------------------

  static final Pattern SIGNATURE_PARAMS =
      Pattern.compile(
          "^\\(((?:\"[a-z0-9@_.-]+\"(?: \"[a-z0-9@_.-]+\")*)?)\\)((?:;[a-z][a-z0-9_.-]*=(?:\"[^\"\\\\]*\"|-?[0-9]+))*)$");
  static final Pattern PARAM = Pattern.compile(";([a-z][a-z0-9_.-]*)=(\"[^\"]*\"|-?[0-9]+)");
  static final Pattern BYTE_SEQUENCE = Pattern.compile("^:([A-Za-z0-9+/]+={0,2}):$");

  /**
   * The raw value of one member of a structured-field dictionary ({@code a=..., b=...}), or null.
   * Commas inside quoted strings and inner lists do not split members.
   */
  static String dictionaryMember(String header, String name) throws Refused {
    List<String> members = new ArrayList<>();
    int start = 0;
    int depth = 0;
    boolean quoted = false;
    for (int i = 0; i < header.length(); i++) {
      char c = header.charAt(i);
      if (quoted) {
        if (c == '\\') i++;
        else if (c == '"') quoted = false;
      } else if (c == '"') quoted = true;
      else if (c == '(') depth++;
      else if (c == ')') depth--;
      else if (c == ',' && depth == 0) {
        members.add(header.substring(start, i));
        start = i + 1;
      }
    }
    members.add(header.substring(start));
    String found = null;
    for (String member : members) {
      String m = member.trim();
      if (!m.startsWith(name + "=")) continue;
      // Two members with one name: a parser elsewhere may pick the other one, so refuse rather than guess.
      if (found != null) throw new Refused("two \"" + name + "\" members in one header");
      found = m.substring(name.length() + 1);
    }
    return found;
  }

  /** {@code :base64:} (a structured-field byte sequence). */
  static byte[] byteSequence(String raw, String what) throws Refused {
    Matcher m = raw == null ? null : BYTE_SEQUENCE.matcher(raw);
    if (m == null || !m.matches()) throw new Refused(what + " is not a byte sequence");
    return Base64.getDecoder().decode(m.group(1));
  }

  /** All values of a response header joined as RFC 9421 section 2.1 says, or null when absent. */
  static String header(HttpResponse<?> response, String name) {
    List<String> values = response.headers().allValues(name);
    if (values.isEmpty()) return null;
    return String.join(", ", values.stream().map(String::trim).toList());
  }

  /**
   * Checks that {@code response} is depot's own answer to the request that carried {@code nonce}:
   * digest, signature by a published key, freshness. Returns the parsed body.
   */
  static Answer verifyAnswer(HttpResponse<byte[]> response, String nonce, KeySet keys) throws Refused {
    byte[] bytes = response.body();
    String input = header(response, "signature-input");
    String signature = header(response, "signature");
    // Without this, anyone who can answer in depot's place (a hosts-file entry, a proxy) says "valid".
    if (input == null || signature == null) throw new Refused("the answer is not signed");

    String paramsText = dictionaryMember(input, "depot");
    if (paramsText == null) throw new Refused("Signature-Input has no \"depot\" signature");
    // Only what depot sends is accepted: components with parameters (;sf, ;key, ;req...) would need
    // a different signature base, and building the wrong one would make the check meaningless.
    Matcher m = SIGNATURE_PARAMS.matcher(paramsText);
    if (!m.matches()) throw new Refused("unsupported Signature-Input: " + paramsText);
    List<String> components = new ArrayList<>();
    for (String c : m.group(1).split(" ")) if (!c.isEmpty()) components.add(c.substring(1, c.length() - 1));
    if (new HashSet<>(components).size() != components.size()) throw new Refused("Signature-Input repeats a component");
    Map<String, Object> params = new LinkedHashMap<>();
    Matcher p = PARAM.matcher(m.group(2));
    while (p.find()) {
      String value = p.group(2);
      Object parsed = value.startsWith("\"") ? value.substring(1, value.length() - 1) : (Object) Long.parseLong(value);
      if (params.put(p.group(1), parsed) != null) throw new Refused("Signature-Input repeats ;" + p.group(1));
    }
    // A signature that leaves out the status or the digest would vouch for any status or any body.
    for (String required : List.of("@status", "content-digest")) {
      if (!components.contains(required)) throw new Refused("the signature does not cover " + required);
    }
    if (!"ed25519".equals(params.get("alg"))) {
      throw new Refused("signature alg is " + params.getOrDefault("alg", "missing") + ", expected ed25519");
    }
    if (!(params.get("keyid") instanceof String kid)) throw new Refused("Signature-Input has no keyid");
    if (!(params.get("created") instanceof Long created)) throw new Refused("Signature-Input has no created time");

    StringBuilder base = new StringBuilder();
    for (String name : components) {
      if (name.equals("@status")) {
        base.append("\"@status\": ").append(response.statusCode()).append('\n');
        continue;
      }
      // A derived component we do not know how to build: verifying a guess would prove nothing.
      if (name.startsWith("@")) throw new Refused("the signature covers " + name + ", which this verifier does not support");
      String value = header(response, name);
      if (value == null) throw new Refused("the signature covers the header " + name + ", which the answer lacks");
      base.append('"').append(name).append("\": ").append(value).append('\n');
    }
    base.append("\"@signature-params\": ").append(paramsText);

    PublicKey key = keys.find(kid);
    byte[] sig = byteSequence(dictionaryMember(signature, "depot"), "the depot Signature");
    if (!ed25519Verifies(key, base.toString().getBytes(StandardCharsets.UTF_8), sig)) {
      throw new Refused("the signature does not verify");
    }

    // The signature covers the Content-Digest header; only this ties it to the body we actually got.
    String digestHeader = header(response, "content-digest");
    if (digestHeader == null) throw new Refused("the answer has no Content-Digest");
    byte[] claimed = byteSequence(dictionaryMember(digestHeader, "sha-256"), "the sha-256 Content-Digest");
    if (!MessageDigest.isEqual(claimed, sha256(bytes))) throw new Refused("the body does not match its Content-Digest");

    // A signed answer recorded yesterday stays signed; the clock bounds how long it can be replayed...
    long now = Instant.now().getEpochSecond();
    if (Math.abs(now - created) > MAX_SKEW_SECONDS) {
      throw new Refused("the signature was created " + (now - created) + " s ago (more than " + MAX_SKEW_SECONDS + " s)");
    }
    if (params.get("expires") instanceof Long expires && expires <= now) throw new Refused("the signature has expired");

    Object body;
    try {
      body = Json.parse(utf8(bytes));
    } catch (Refused e) {
      throw new Refused("the signed body is not JSON (" + e.getMessage() + ")");
    }
    if (!(body instanceof Map<?, ?>)) throw new Refused("the signed body is not a JSON object");
    @SuppressWarnings("unchecked")
    Answer answer = new Answer(response.statusCode(), (Map<String, Object>) body);
    // ...and the nonce makes it worthless: only an answer to this very request echoes it. (A heartbeat
    // takes no nonce: its answer only says the machine is alive, which the file and validate recheck.)
    if (nonce != null && (answer.status() == 200 || answer.status() == 201) && !nonce.equals(answer.body().get("nonce"))) {
      throw new Refused("the answer does not echo our nonce (a replayed answer?)");
    }
    return answer;
  }

  static String normaliseKey(String key) {
    return key.trim().toUpperCase(java.util.Locale.ROOT);
  }

  static boolean sameId(Object a, String b) {
    return a instanceof String s && s.matches("[0-9]+") && new BigInteger(s).equals(new BigInteger(b));
  }

  /** null for VALID, or why not. Throws Refused when a VALID answer is about some other license. */
  static String outcome(Answer answer, Config config) throws Refused {
    Map<String, Object> body = answer.body();
    if (answer.status() != 200) {
      return "HTTP " + answer.status() + ": " + (body.get("message") instanceof String s ? s : "error");
    }
    if (!Boolean.TRUE.equals(body.get("valid")) || !"VALID".equals(body.get("code"))) {
      return body.get("code") instanceof String code ? code : "not valid";
    }
    // The request itself is not signed: someone in the middle could swap in their own key, or drop
    // productId, and get depot to sign a genuine VALID for that. So the answer must name our license.
    if (!(body.get("license") instanceof Map<?, ?> license)
        || !(license.get("key") instanceof String key)
        || !normaliseKey(key).equals(normaliseKey(config.key()))) {
      throw new Refused("the answer is about another license key");
    }
    if (config.product() != null && !sameId(license.get("productId"), config.product())) {
      throw new Refused("the answer is about another product");
    }
    if (config.fingerprint() != null) {
      if (!(body.get("machine") instanceof Map<?, ?> machine) || !config.fingerprint().equals(machine.get("fingerprint"))) {
        throw new Refused("the answer is about another machine");
      }
      if (!Boolean.TRUE.equals(machine.get("alive"))) return "this machine is not alive";
    }
    return null;
  }

  static HttpResponse<byte[]> post(Config config, String path, String nonce) throws Refused {
    StringBuilder json = new StringBuilder("{\"key\":").append(Json.quote(config.key()));
    if (config.product() != null) json.append(",\"productId\":").append(Json.quote(config.product()));
    if (config.fingerprint() != null) json.append(",\"fingerprint\":").append(Json.quote(config.fingerprint()));
    json.append(",\"nonce\":").append(Json.quote(nonce)).append('}');
    return send(config, HttpRequest.newBuilder(URI.create(config.url() + path))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(json.toString())));
  }

  static HttpResponse<byte[]> send(Config config, HttpRequest.Builder builder) throws Refused {
    HttpRequest request = builder.timeout(Duration.ofSeconds(30)).header("Accept", "application/json").build();
    try {
      return HTTP.send(request, HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException | InterruptedException e) {
      throw new Refused("cannot reach " + config.url() + ": " + e);
    }
  }

  static final SecureRandom RANDOM = new SecureRandom();

  /** A nonce nobody can predict, so no answer can be prepared in advance. */
  static String freshNonce() {
    byte[] bytes = new byte[18];
    RANDOM.nextBytes(bytes);
    return Base64.getEncoder().encodeToString(bytes);
  }

  // --- this machine (--fingerprint) -----------------------------------------------------------

  /**
   * Activates this machine (201 new, 200 already active) and sends one heartbeat, each a signed answer
   * checked like validate's. A real app sends heartbeats every heartbeatSeconds while it runs; a 410
   * means the seat was lost and it must activate again.
   */
  static void activateAndHeartbeat(Config config, KeySet keys) throws Refused {
    String nonce = freshNonce();
    String platform = System.getProperty("os.name").toLowerCase(java.util.Locale.ROOT).replace(' ', '-') + "-"
        + System.getProperty("os.arch");
    String json = "{\"key\":" + Json.quote(config.key()) + ",\"fingerprint\":" + Json.quote(config.fingerprint())
        + ",\"name\":\"verify example\",\"platform\":" + Json.quote(platform) + ",\"nonce\":" + Json.quote(nonce) + "}";
    Answer activation = verifyAnswer(send(config, HttpRequest.newBuilder(URI.create(config.url() + "/api/v1/licenses/activate"))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(json))), nonce, keys);
    Map<String, Object> body = activation.body();
    if (activation.status() != 200 && activation.status() != 201) {
      throw new Refused("activate: HTTP " + activation.status() + ": " + body.get("code") + " " + body.get("message"));
    }
    if (!(body.get("license") instanceof Map<?, ?> license) || !(license.get("key") instanceof String key)
        || !normaliseKey(key).equals(normaliseKey(config.key()))) {
      throw new Refused("activate: the answer is about another license key");
    }
    if (!(body.get("machine") instanceof Map<?, ?> machine) || !(machine.get("id") instanceof String id)
        || !config.fingerprint().equals(machine.get("fingerprint"))) {
      throw new Refused("activate: the answer is about another machine");
    }
    System.out.println("machine: " + (activation.status() == 201 ? "activated" : "already active") + " (" + id + ")");
    Answer beat = verifyAnswer(send(config, HttpRequest.newBuilder(URI.create(config.url() + "/api/v1/machines/" + id + "/heartbeat"))
        .header("Authorization", "License " + config.key())
        .POST(HttpRequest.BodyPublishers.noBody())), null, keys);
    if (beat.status() != 200 || !(beat.body().get("machine") instanceof Map<?, ?> beaten) || !id.equals(beaten.get("id"))
        || !Boolean.TRUE.equals(beaten.get("alive"))) {
      Object why = beat.body().containsKey("code") ? beat.body().get("code") : beat.body().get("message");
      throw new Refused("heartbeat: HTTP " + beat.status() + ": " + why);
    }
    System.out.println("heartbeat: signature and digest verified, alive since " + beaten.get("lastHeartbeatAt"));
  }

  // --- the license file (offline) -------------------------------------------------------------

  static final Pattern ARMOUR =
      Pattern.compile("-----BEGIN DEPOT LICENSE FILE-----(.*?)-----END DEPOT LICENSE FILE-----", Pattern.DOTALL);
  static final Pattern COMPACT_JWS = Pattern.compile("^([A-Za-z0-9_-]+)\\.([A-Za-z0-9_-]+)\\.([A-Za-z0-9_-]+)$");

  /**
   * Verifies the license file with the keys we already hold, without the network: it is what lets the
   * software run when depot cannot be reached, so it must stand on its own signature.
   */
  static Instant verifyLicenseFile(String text, KeySet keys, Config config) throws Refused {
    Matcher armour = ARMOUR.matcher(text);
    if (!armour.find()) throw new Refused("no DEPOT LICENSE FILE block");
    Matcher jws = COMPACT_JWS.matcher(armour.group(1).replaceAll("\\s+", ""));
    if (!jws.matches()) throw new Refused("not a compact JWS");

    Map<String, Object> header = jsonObject(base64url(jws.group(1)), "header");
    // The header is not trusted yet, but it picks the key and the algorithm: allow only ours.
    if (!"EdDSA".equals(header.get("alg"))) throw new Refused("alg is " + header.get("alg") + ", expected EdDSA");
    // typ keeps some other JWT depot's keys might sign from passing as a license file.
    if (!LICENSE_FILE_TYPE.equals(header.get("typ"))) throw new Refused("typ is " + header.get("typ"));
    if (header.containsKey("crit")) throw new Refused("the header has critical extensions this verifier does not know");
    if (!(header.get("kid") instanceof String kid)) throw new Refused("the header names no kid");
    PublicKey key = keys.cached(kid);
    byte[] signingInput = (jws.group(1) + "." + jws.group(2)).getBytes(StandardCharsets.US_ASCII);
    if (!ed25519Verifies(key, signingInput, base64url(jws.group(3)))) throw new Refused("signature verification failed");

    Map<String, Object> claims = jsonObject(base64url(jws.group(2)), "payload");
    long now = Instant.now().getEpochSecond();
    // A file from another depot (same software, other vendor) must not unlock this one.
    if (!config.url().equals(claims.get("iss"))) {
      // The same words as the TypeScript example: which issuer, which was expected, and what it is.
      String found = claims.get("iss") instanceof String iss ? "\"" + iss + "\"" : String.valueOf(claims.get("iss"));
      throw new Refused("the file was issued by " + found + ", expected \"" + config.url() + "\" (the issuer is the depot's "
          + "APP_URL: verify with the URL the server's APP_URL names, or set APP_URL to the address clients use)");
    }
    if (!(claims.get("exp") instanceof Number exp)) throw new Refused("the file has no exp");
    if (exp.longValue() <= now) throw new Refused("the file expired at " + Instant.ofEpochSecond(exp.longValue()));
    if (claims.get("nbf") instanceof Number nbf && nbf.longValue() > now) throw new Refused("the file is not valid yet");
    // A genuine file for someone else's license would otherwise unlock ours.
    if (!(claims.get("key") instanceof String licenseKey) || !normaliseKey(licenseKey).equals(normaliseKey(config.key()))) {
      throw new Refused("the file is for another license key");
    }
    if (config.product() != null && !sameId(claims.get("product_id"), config.product())) {
      throw new Refused("the file is for another product");
    }
    if (claims.get("expires") instanceof String expires && !Instant.parse(expires).isAfter(Instant.now())) {
      throw new Refused("the license expired at " + expires);
    }
    // A file bound to another machine (copied from it) must not unlock this one.
    if (config.fingerprint() != null && !config.fingerprint().equals(claims.get("fingerprint"))) {
      throw new Refused(claims.containsKey("fingerprint") ? "the file is bound to another machine" : "the file is not bound to a machine");
    }
    return Instant.ofEpochSecond(exp.longValue());
  }

  /** Uses the file at config.licenseFile, or checks one out (a signed answer like any other) and writes it. */
  static void obtainLicenseFile(Config config, KeySet keys) throws Refused {
    if (Files.exists(config.licenseFile())) {
      System.out.println("license file: using " + config.licenseFile());
      return;
    }
    String nonce = freshNonce();
    Answer answer;
    String why;
    try {
      answer = verifyAnswer(post(config, "/api/v1/licenses/checkout", nonce), nonce, keys);
      why = outcome(answer, config);
    } catch (Refused e) {
      throw new Refused("checkout: " + e.getMessage());
    }
    if (why != null) throw new Refused("checkout: " + why);
    if (!(answer.body().get("license_file") instanceof String file)) throw new Refused("checkout: no license_file in the answer");
    try {
      Files.writeString(config.licenseFile(), file);
    } catch (IOException e) {
      throw new Refused("cannot write " + config.licenseFile() + ": " + e.getMessage());
    }
    System.out.println("license file: checked out (until " + answer.body().get("license_file_expires_at") + "), written to "
        + config.licenseFile());
  }

  // --- main -----------------------------------------------------------------------------------

  static int run(Config config) {
    if (config.jwks() == null) System.err.println(UNPINNED_WARNING);
    KeySet keys = new KeySet(config.url(), config.jwks());
    try {
      keys.load();
    } catch (Refused e) {
      System.out.println("keys: INVALID (" + e.getMessage() + ")");
      return 1;
    }
    System.out.println("keys: " + keys.keys.size() + " Ed25519 key(s) " + keys.source());

    if (config.fingerprint() != null) {
      try {
        activateAndHeartbeat(config, keys);
      } catch (Refused e) {
        System.out.println("machine: INVALID (" + e.getMessage() + ")");
        return 1;
      }
    }

    boolean answerOk = false;
    try {
      String nonce = freshNonce();
      Answer answer = verifyAnswer(post(config, "/api/v1/licenses/validate", nonce), nonce, keys);
      // An error answer carries no nonce; it can only say "no", which anyone in the middle can do anyway.
      String checked = answer.status() == 200 ? "signature, digest and nonce" : "signature and digest";
      System.out.println("answer: " + checked + " verified (HTTP " + answer.status() + ")");
      String why = outcome(answer, config);
      System.out.println(why == null ? "VALID" : "INVALID (" + why + ")");
      answerOk = why == null;
    } catch (Refused e) {
      System.out.println("INVALID (" + e.getMessage() + ")");
    }

    boolean fileOk = false;
    try {
      obtainLicenseFile(config, keys);
      String text;
      try {
        text = Files.readString(config.licenseFile());
      } catch (IOException e) {
        throw new Refused("cannot read " + config.licenseFile() + ": " + e.getMessage());
      }
      System.out.println("license file VALID until " + verifyLicenseFile(text, keys, config));
      fileOk = true;
    } catch (Refused e) {
      System.out.println("license file INVALID (" + e.getMessage() + ")");
    }
    return answerOk && fileOk ? 0 : 1;
  }

  // --- helpers --------------------------------------------------------------------------------

  static byte[] sha256(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  static byte[] base64url(String text) throws Refused {
    try {
      return Base64.getUrlDecoder().decode(text);
    } catch (IllegalArgumentException e) {
      throw new Refused("not base64url");
    }
  }

  /** Strict UTF-8: a body that is not valid UTF-8 is refused, not patched with replacement characters. */
  static String utf8(byte[] bytes) throws Refused {
    try {
      return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      throw new Refused("not UTF-8");
    }
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> jsonObject(byte[] bytes, String what) throws Refused {
    Object value;
    try {
      value = Json.parse(utf8(bytes));
    } catch (Refused e) {
      throw new Refused("the " + what + " is not JSON (" + e.getMessage() + ")");
    }
    if (!(value instanceof Map<?, ?>)) throw new Refused("the " + what + " is not a JSON object");
    return (Map<String, Object>) value;
  }

  /**
   * A small strict JSON reader (RFC 8259): objects become LinkedHashMap, arrays ArrayList, numbers
   * Long when integral and Double otherwise. Duplicate object keys are refused: two readers that
   * pick different duplicates would see two different answers. The JWKS is read before anything is
   * verified, so nesting is bounded: a hostile server must not be able to overflow the stack.
   */
  static final class Json {
    static final Pattern NUMBER = Pattern.compile("-?(?:0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?");
    static final int MAX_DEPTH = 64;
    private final String s;
    private int i;
    private int depth;

    private Json(String s) {
      this.s = s;
    }

    static Object parse(String text) throws Refused {
      Json p = new Json(text);
      Object value = p.value();
      p.whitespace();
      if (p.i != text.length()) throw p.error("text after the value");
      return value;
    }

    static String quote(String text) {
      StringBuilder b = new StringBuilder("\"");
      for (char c : text.toCharArray()) {
        if (c == '"' || c == '\\') b.append('\\').append(c);
        else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
        else b.append(c);
      }
      return b.append('"').toString();
    }

    private Refused error(String message) {
      return new Refused(message + " at offset " + i);
    }

    private void whitespace() {
      while (i < s.length() && " \t\r\n".indexOf(s.charAt(i)) >= 0) i++;
    }

    private char next() throws Refused {
      if (i >= s.length()) throw error("unexpected end");
      return s.charAt(i++);
    }

    private void expect(char c) throws Refused {
      whitespace();
      if (next() != c) throw error("expected '" + c + "'");
    }

    private Object value() throws Refused {
      whitespace();
      if (i >= s.length()) throw error("unexpected end");
      char c = s.charAt(i);
      if ((c == '{' || c == '[') && depth >= MAX_DEPTH) throw error("nested too deeply");
      return switch (c) {
        case '{' -> object();
        case '[' -> array();
        case '"' -> string();
        case 't' -> literal("true", Boolean.TRUE);
        case 'f' -> literal("false", Boolean.FALSE);
        case 'n' -> literal("null", null);
        default -> number();
      };
    }

    private Map<String, Object> object() throws Refused {
      Map<String, Object> map = new LinkedHashMap<>();
      i++; // {
      whitespace();
      if (i < s.length() && s.charAt(i) == '}') {
        i++;
        return map;
      }
      depth++;
      while (true) {
        whitespace();
        if (i >= s.length() || s.charAt(i) != '"') throw error("expected a key");
        String key = string();
        if (map.containsKey(key)) throw error("duplicate key \"" + key + "\"");
        expect(':');
        map.put(key, value());
        whitespace();
        char c = next();
        if (c == '}') {
          depth--;
          return map;
        }
        if (c != ',') throw error("expected ',' or '}'");
      }
    }

    private List<Object> array() throws Refused {
      List<Object> list = new ArrayList<>();
      i++; // [
      whitespace();
      if (i < s.length() && s.charAt(i) == ']') {
        i++;
        return list;
      }
      depth++;
      while (true) {
        list.add(value());
        whitespace();
        char c = next();
        if (c == ']') {
          depth--;
          return list;
        }
        if (c != ',') throw error("expected ',' or ']'");
      }
    }

    private String string() throws Refused {
      StringBuilder b = new StringBuilder();
      i++; // "
      while (true) {
        char c = next();
        if (c == '"') return b.toString();
        if (c < 0x20) throw error("control character in a string");
        if (c != '\\') {
          b.append(c);
          continue;
        }
        char e = next();
        switch (e) {
          case '"', '\\', '/' -> b.append(e);
          case 'b' -> b.append('\b');
          case 'f' -> b.append('\f');
          case 'n' -> b.append('\n');
          case 'r' -> b.append('\r');
          case 't' -> b.append('\t');
          case 'u' -> {
            // Each \\uXXXX is one UTF-16 unit; a surrogate pair arrives as two of them, in order.
            if (i + 4 > s.length() || !s.substring(i, i + 4).matches("[0-9A-Fa-f]{4}")) throw error("bad \\u escape");
            b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
            i += 4;
          }
          default -> throw error("bad escape \\" + e);
        }
      }
    }

    private Object literal(String word, Object value) throws Refused {
      if (!s.startsWith(word, i)) throw error("unexpected character");
      i += word.length();
      return value;
    }

    private Object number() throws Refused {
      Matcher m = NUMBER.matcher(s).region(i, s.length());
      if (!m.lookingAt()) throw error("unexpected character");
      String text = m.group();
      i = m.end();
      if (m.group(1) == null && m.group(2) == null) {
        try {
          return Long.parseLong(text);
        } catch (NumberFormatException tooBig) {
          return Double.parseDouble(text);
        }
      }
      return Double.parseDouble(text);
    }
  }
}
