package io.github.depothq.depot;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * depot's client: validates license keys, activates machines, keeps working offline, and finds and
 * downloads updates. Every answer it returns has been verified as depot's answer to this very
 * request (sdk/README.md, "What is checked, in this order"); anything else is an
 * {@link UnverifiableException}, no answer an {@link UnreachableException}, and a verified no from
 * depot a {@link RefusedException}.
 *
 * <pre>{@code
 * DepotClient depot = DepotClient.builder()
 *     .server("https://licenses.example.com")
 *     .productId("1")
 *     .jwks(Path.of("depot-keys.json"))   // shipped with the app
 *     .build();
 * Validation v = depot.validate(key);
 * }</pre>
 *
 * A client is thread-safe; make one and share it.
 */
public final class DepotClient {
  /** This library's version. */
  public static final String VERSION = "0.1.0";
  /** The depot API it speaks. */
  public static final String API_VERSION = "depot 0.1 (/api/v1)";

  private static final SecureRandom RANDOM = new SecureRandom();

  private final String server;
  private final String productId;
  private final KeySet keys;
  private final Transport transport;
  private final AnswerVerifier verifier;
  private final StateStore store;
  private final Duration maxClockSkew;
  private final Duration offlineGrace;
  private final Clock clock;

  private DepotClient(Builder b, KeySet keys, Transport transport) {
    this.server = b.server;
    this.productId = b.productId;
    this.keys = keys;
    this.transport = transport;
    this.maxClockSkew = b.maxClockSkew;
    this.offlineGrace = b.offlineGrace;
    this.clock = b.clock;
    this.verifier = new AnswerVerifier(keys, b.clock, b.maxClockSkew);
    this.store = new StateStore(b.stateDir);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** depot's base URL, without a trailing slash: also the issuer every license file must name. */
  public String server() {
    return server;
  }

  /** The product this client is for. */
  public String productId() {
    return productId;
  }

  /** How many keys are trusted now (a fetched set: 0 before its first use). */
  public int trustedKeyCount() {
    return keys.size();
  }

  /** Fetches the key set now when the client fetches it ({@code fetchJwks}); nothing when it is pinned. */
  public void loadKeys() throws DepotException {
    keys.load();
  }

  // --- validate and checkout ------------------------------------------------------------------

  /** {@code POST /api/v1/licenses/validate}, without a fingerprint. */
  public Validation validate(String key) throws DepotException {
    return validate(key, null);
  }

  /**
   * {@code POST /api/v1/licenses/validate}. A verified answer is returned whatever it says (look at
   * {@code valid()} and {@code code()}) and kept for {@link #status}; a verified refusal (422 for a
   * malformed key) is a {@link RefusedException}.
   *
   * @param fingerprint this machine's (required by a license with maxMachines), or null
   */
  public Validation validate(String key, String fingerprint) throws DepotException {
    return validation("/api/v1/licenses/validate", key, fingerprint, null).validation;
  }

  /** {@code POST /api/v1/licenses/checkout} with the server's default lifetime (30 days). */
  public Validation checkout(String key) throws DepotException {
    return checkout(key, null, null);
  }

  /**
   * {@code POST /api/v1/licenses/checkout}: a validation that, when valid, carries a signed license
   * file ({@code licenseFile()}) for {@link #verifyLicenseFile} to check offline. The file is kept for
   * {@link #status}. Not valid: the same answer as validate, without a file.
   *
   * @param fingerprint binds the file to this machine (it must be activated), or null
   * @param ttl the file's lifetime (an hour to a year), or null for the server's default
   */
  public Validation checkout(String key, String fingerprint, Duration ttl) throws DepotException {
    Validation v = validation("/api/v1/licenses/checkout", key, fingerprint, ttl).validation;
    if (v.licenseFile() != null) store.keepLicenseFile(key, fingerprint, v.licenseFile());
    return v;
  }

  record Verified(Validation validation, Instant created) {}

  private Verified validation(String path, String key, String fingerprint, Duration ttl) throws DepotException {
    Objects.requireNonNull(key, "key");
    String nonce = nonce();
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("key", key);
    body.put("productId", productId);
    if (fingerprint != null) body.put("fingerprint", fingerprint);
    if (ttl != null) body.put("ttl", ttl.getSeconds());
    body.put("nonce", nonce);
    RawAnswer raw = transport.send(post(path, body), server);
    Verified verified = verifyValidation(raw, nonce, key, fingerprint);
    store.keepAnswer(key, fingerprint, raw);
    return verified;
  }

  /** Every check of a validation's answer, as it came: what validate costs besides the network (bench). */
  Verified verifyValidation(RawAnswer raw, String nonce, String key, String fingerprint) throws DepotException {
    AnswerVerifier.Checked checked = verifier.verify(raw, nonce);
    if (!raw.ok()) throw refusal(checked);
    return new Verified(aboutValidation(checked.body(), key, fingerprint), checked.created());
  }

  /** Step 7 for a validation: about this key, this product, this machine. */
  private Validation aboutValidation(Fields body, String key, String fingerprint) throws UnverifiableException {
    Validation v = Validation.from(body);
    // The request is not signed: someone in the middle could swap in their own key, or another
    // product, and get depot to sign a genuine VALID for that. So the answer must name ours.
    if (v.license() == null) {
      if (v.valid()) throw new UnverifiableException("the answer is about another license key");
    } else {
      if (!LicenseFiles.normaliseKey(v.license().key()).equals(LicenseFiles.normaliseKey(key))) {
        throw new UnverifiableException("the answer is about another license key");
      }
      if (v.valid() && !"VALID".equals(v.code())) throw new UnverifiableException("a valid answer with the code " + v.code());
      // depot answers REVOKED and EXPIRED before it compares products (any product's license);
      // PRODUCT_MISMATCH names another product by definition; every other answer names ours.
      boolean ours = LicenseFiles.sameId(v.license().productId(), productId);
      boolean beforeProduct = "REVOKED".equals(v.code()) || "EXPIRED".equals(v.code());
      if (!beforeProduct && ours == "PRODUCT_MISMATCH".equals(v.code())) {
        throw new UnverifiableException("the answer is about another product");
      }
      // depot names the machine (or null) whenever a fingerprint came: without it, the request
      // lost its fingerprint on the way.
      if (fingerprint != null && !body.has("machine")) {
        throw new UnverifiableException("the answer names no machine for the fingerprint sent");
      }
    }
    if (fingerprint != null && v.machine() != null && !fingerprint.equals(v.machine().fingerprint())) {
      throw new UnverifiableException("the answer is about another machine");
    }
    return v;
  }

  // --- machines -------------------------------------------------------------------------------

  /** {@code POST /api/v1/licenses/activate} with nothing but the fingerprint. */
  public Activation activate(String key, String fingerprint) throws DepotException {
    return activate(key, fingerprint, MachineInfo.NONE);
  }

  /**
   * {@code POST /api/v1/licenses/activate}: takes a seat for this machine (201, {@code created()}),
   * or refreshes one it holds (200). Refusals: {@code TOO_MANY_MACHINES}, {@code TOO_MANY_ACTIVATIONS}
   * (with {@code retryAfter()}), {@code REVOKED}, {@code EXPIRED}, {@code NOT_FOUND}, {@code INVALID}.
   */
  public Activation activate(String key, String fingerprint, MachineInfo info) throws DepotException {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(fingerprint, "fingerprint");
    MachineInfo machine = info == null ? MachineInfo.NONE : info;
    String nonce = nonce();
    Map<String, Object> body = machineRequest(key, fingerprint, machine);
    body.put("nonce", nonce);
    RawAnswer raw = transport.send(post("/api/v1/licenses/activate", body), server);
    AnswerVerifier.Checked checked = verifier.verify(raw, nonce);
    if (!raw.ok()) throw refusal(checked);
    Fields f = checked.body();
    License license = License.from(f.object("license"));
    Machine m = Machine.from(f.object("machine"));
    if (!LicenseFiles.normaliseKey(license.key()).equals(LicenseFiles.normaliseKey(key))) {
      throw new UnverifiableException("the answer is about another license key");
    }
    if (!fingerprint.equals(m.fingerprint())) throw new UnverifiableException("the answer is about another machine");
    if (!LicenseFiles.sameId(license.productId(), productId)) {
      // Activation names no product: depot's genuine answer about this key says its license is
      // another product's (the seat is taken there all the same).
      throw new RefusedException("PRODUCT_MISMATCH", "This license is for product " + license.productId() + ", not " + productId + ".",
          raw.status(), null, null, null);
    }
    return new Activation(m, license, raw.status() == 201);
  }

  /**
   * {@code POST /api/v1/machines/{id}/heartbeat}: keeps the machine's seat for another
   * heartbeatSeconds. Refusals: {@code HEARTBEAT_DEAD} (activate again), {@code NOT_FOUND},
   * {@code REVOKED}, {@code EXPIRED}, {@code UNAUTHENTICATED}.
   */
  public Machine heartbeat(String key, String machineId) throws DepotException {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(machineId, "machineId");
    String nonce = nonce();
    HttpRequest.Builder request = HttpRequest.newBuilder(uri("/api/v1/machines/" + segment(machineId) + "/heartbeat?nonce=" + query(nonce)))
        .header("Authorization", "License " + key)
        .header("Accept", "application/json")
        .POST(HttpRequest.BodyPublishers.noBody());
    RawAnswer raw = transport.send(request, server);
    AnswerVerifier.Checked checked = verifier.verify(raw, nonce);
    if (!raw.ok()) throw refusal(checked);
    Machine m = Machine.from(checked.body().object("machine"));
    if (!machineId.equals(m.id())) throw new UnverifiableException("the answer is about another machine");
    return m;
  }

  /** {@link #startHeartbeat(String, String, Duration, Consumer)} every 60 seconds, errors ignored. */
  public Heartbeat startHeartbeat(String key, String machineId) {
    return startHeartbeat(key, machineId, Duration.ofSeconds(60), null);
  }

  /**
   * Sends a heartbeat now and then every {@code interval} on a daemon thread, until the handle is
   * stopped (or closed). Choose an interval well within the license's {@code heartbeatSeconds} (half
   * of it, say). A failed heartbeat goes to {@code onError} (may be null); a final refusal
   * ({@code HEARTBEAT_DEAD} …) also stops the timer.
   */
  public Heartbeat startHeartbeat(String key, String machineId, Duration interval, Consumer<DepotException> onError) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(machineId, "machineId");
    return new Heartbeat(this, key, machineId, interval, onError);
  }

  /**
   * {@code DELETE /api/v1/machines/{id}}: frees the machine's seat. The 204 is unsigned (it has no
   * body to sign); refusals are verified like every other.
   */
  public void deactivate(String key, String machineId) throws DepotException {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(machineId, "machineId");
    HttpRequest.Builder request = HttpRequest.newBuilder(uri("/api/v1/machines/" + segment(machineId)))
        .header("Authorization", "License " + key)
        .header("Accept", "application/json")
        .DELETE();
    RawAnswer raw = transport.send(request, server);
    if (raw.ok()) return;
    throw refusal(verifier.verify(raw, null));
  }

  /**
   * The activation request an air-gapped machine writes (docs/vendors.md, "Offline activation"):
   * {@code {"v":1,"key":…,"fingerprint":…,"name":…,"platform":…,"hostname":…}} (absent fields left
   * out) in UTF-8, standard base64 without line breaks. The customer hands it to the dashboard; the
   * file they bring back is checked with {@link #verifyLicenseFile} and the fingerprint.
   */
  public static String offlineActivationRequest(String key, String fingerprint, MachineInfo info) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(fingerprint, "fingerprint");
    Map<String, Object> request = new LinkedHashMap<>();
    request.put("v", 1L);
    request.putAll(machineRequest(key, fingerprint, info == null ? MachineInfo.NONE : info));
    return Base64.getEncoder().encodeToString(Json.write(request).getBytes(StandardCharsets.UTF_8));
  }

  private static Map<String, Object> machineRequest(String key, String fingerprint, MachineInfo info) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("key", key);
    body.put("fingerprint", fingerprint);
    if (info.name() != null) body.put("name", info.name());
    if (info.platform() != null) body.put("platform", info.platform());
    if (info.hostname() != null) body.put("hostname", info.hostname());
    return body;
  }

  /**
   * This machine's fingerprint for {@code productId}: lower-case hex SHA-256 of
   * {@code depot:<productId>:<machine id>}, the machine id being Windows' MachineGuid, macOS's
   * IOPlatformUUID or Linux's /etc/machine-id (then /var/lib/dbus/machine-id). It reveals nothing
   * about the machine and differs per product. Changes when the OS is reinstalled, a VM image is
   * cloned with a new id, or sysprep runs; containers from one image may share it.
   *
   * @throws DepotException when the system has no machine id (use the two-argument form with an id
   *     the app keeps)
   */
  public static String machineFingerprint(String productId) throws DepotException {
    return MachineFingerprint.of(productId, MachineFingerprint.systemMachineId());
  }

  /** The fingerprint of a machine id of the app's own (e.g. a random id stored at first start). */
  public static String machineFingerprint(String productId, String machineId) {
    return MachineFingerprint.of(productId, Objects.requireNonNull(machineId, "machineId"));
  }

  // --- license files --------------------------------------------------------------------------

  /** {@link #verifyLicenseFile(String, LicenseFileCheck)} without a key or fingerprint to match. */
  public LicenseFile verifyLicenseFile(String text) throws DepotException {
    return verifyLicenseFile(text, LicenseFileCheck.NONE);
  }

  /**
   * Verifies a license file offline (no network): an EdDSA JWS of type {@code depot-license+jwt} by
   * a trusted key, issued by {@link #server()}, for this product, not before its time, not past
   * {@code exp} + grace, and for the check's key and fingerprint when it names them.
   *
   * @throws UnverifiableException naming the check that failed
   */
  public LicenseFile verifyLicenseFile(String text, LicenseFileCheck check) throws DepotException {
    LicenseFileCheck c = check == null ? LicenseFileCheck.NONE : check;
    Instant now = c.now() != null ? c.now() : clock.instant();
    return LicenseFiles.verify(text, keys, server, productId, c.key(), c.fingerprint(), now, c.grace(), maxClockSkew);
  }

  // --- updates --------------------------------------------------------------------------------

  /** {@link #checkForUpdate(String, String, UpdateTarget)} for any platform and arch, stable channel. */
  public Upgrade checkForUpdate(String key, String currentVersion) throws DepotException {
    return checkForUpdate(key, currentVersion, UpdateTarget.ANY);
  }

  /**
   * {@code GET /api/v1/products/{productId}/upgrade}: the version this app is offered (the feeds'
   * decision: channel, drafts, yanks, staged rollout), with its files for the target. The answer
   * must name the product, platform, arch, channel and current version asked.
   *
   * @param key the license key (null for a free product)
   * @param currentVersion the version the app runs (semver)
   */
  public Upgrade checkForUpdate(String key, String currentVersion, UpdateTarget target) throws DepotException {
    Objects.requireNonNull(currentVersion, "currentVersion");
    UpdateTarget t = target == null ? UpdateTarget.ANY : target;
    String nonce = nonce();
    StringBuilder q = new StringBuilder("?version=").append(query(currentVersion));
    if (t.platform() != null) q.append("&platform=").append(query(t.platform()));
    if (t.arch() != null) q.append("&arch=").append(query(t.arch()));
    if (t.channel() != null) q.append("&channel=").append(query(t.channel()));
    q.append("&nonce=").append(query(nonce));
    HttpRequest.Builder request = HttpRequest.newBuilder(uri("/api/v1/products/" + segment(productId) + "/upgrade" + q))
        .header("Accept", "application/json")
        .GET();
    if (key != null) request.header("Authorization", "License " + key);
    if (t.stagingId() != null) request.header("x-user-staging-id", t.stagingId());
    RawAnswer raw = transport.send(request, server);
    AnswerVerifier.Checked checked = verifier.verify(raw, nonce);
    if (!raw.ok()) throw refusal(checked);
    Upgrade u = Upgrade.from(checked.body());
    // A relaying server could hand us depot's genuine "no upgrade" for another product, platform,
    // channel or a newer current version, and keep a security release from us.
    if (!LicenseFiles.sameId(u.productId(), productId)) throw new UnverifiableException("the upgrade answer is about another product");
    if (!u.platform().equals(t.platform() == null ? "any" : t.platform())) throw new UnverifiableException("the upgrade answer is about another platform");
    if (!u.arch().equals(t.arch() == null ? "any" : t.arch())) throw new UnverifiableException("the upgrade answer is about another arch");
    if (!u.channel().equals(t.channel() == null ? "stable" : t.channel())) throw new UnverifiableException("the upgrade answer is about another channel");
    if (!u.current().equals(currentVersion)) throw new UnverifiableException("the upgrade answer is about another current version");
    if (u.upgrade() && u.version() == null) throw new UnverifiableException("the upgrade answer offers no version");
    return u;
  }

  /** {@link #download(String, Artifact, Path, DownloadProgress)} without progress. */
  public Path download(String key, Artifact artifact, Path directory) throws DepotException {
    return download(key, artifact, directory, null);
  }

  /**
   * Downloads an artifact into {@code directory}: streamed into {@code <file_name>.part} (resumed
   * when a part is there), checked against its sha512 and sha256, then renamed to its
   * {@code file_name}. A mismatch, or more bytes than {@code file_size}, deletes the part
   * ({@link UnverifiableException}); a name that is not a plain file name is refused before a byte is
   * written. The timeout is between bytes.
   *
   * @param key sent as {@code X-License-Key} (null for a free product)
   * @param onProgress called on the HTTP client's thread as bytes arrive (may be null)
   * @return the path of the verified file
   */
  public Path download(String key, Artifact artifact, Path directory, DownloadProgress onProgress) throws DepotException {
    Objects.requireNonNull(artifact, "artifact");
    Objects.requireNonNull(directory, "directory");
    return Downloader.download(transport, key, artifact, directory, onProgress);
  }

  // --- status ---------------------------------------------------------------------------------

  /** {@link #status(String, String)} without a fingerprint. */
  public Status status(String key) {
    return status(key, null);
  }

  /**
   * Whether the app may run now, online or not. Validates; a verified answer is the status
   * ({@code ONLINE}). When depot cannot be reached or its answer not verified: the last verified
   * validation of this key and fingerprint younger than {@code offlineGrace} ({@code CACHE}), else the
   * license file last checked out if it verifies now ({@code LICENSE_FILE}), else not valid with code
   * {@code UNREACHABLE} or {@code UNVERIFIABLE} ({@code NONE}). Never throws a DepotException: the
   * status carries the error.
   */
  public Status status(String key, String fingerprint) {
    Objects.requireNonNull(key, "key");
    DepotException error;
    try {
      Verified online = validation("/api/v1/licenses/validate", key, fingerprint, null);
      Validation v = online.validation;
      return new Status(v.valid(), v.code(), Status.Source.ONLINE, online.created, v, null, null);
    } catch (RefusedException e) {
      return new Status(false, e.code(), Status.Source.ONLINE, clock.instant(), null, null, e);
    } catch (DepotException e) {
      error = e;
    }
    Instant lastAnswered = null;
    try {
      RawAnswer kept = store.answer(key, fingerprint);
      if (kept != null) {
        AnswerVerifier.Checked checked = verifier.signed(kept);
        Instant now = clock.instant();
        boolean young = !checked.created().isAfter(now.plus(maxClockSkew))
            && !checked.created().plus(offlineGrace).isBefore(now);
        if (kept.ok()) {
          Validation v = aboutValidation(checked.body(), key, fingerprint);
          if (young) return new Status(v.valid(), v.code(), Status.Source.CACHE, checked.created(), v, null, error);
          lastAnswered = checked.created();
        }
      }
    } catch (DepotException e) {
      // a kept answer that no longer verifies (keys rotated out, damaged) stands in for nothing
    }
    String file = store.licenseFile(key, fingerprint);
    if (file != null) {
      try {
        LicenseFile f = verifyLicenseFile(file, new LicenseFileCheck(key, fingerprint, null, null));
        return new Status(true, "VALID", Status.Source.LICENSE_FILE, f.issuedAt(), null, f, error);
      } catch (DepotException e) {
        // expired or no longer trusted: nothing left
      }
    }
    String code = error instanceof UnreachableException ? "UNREACHABLE" : "UNVERIFIABLE";
    // When depot last said anything about this key, however long ago (null: nothing kept).
    return new Status(false, code, Status.Source.NONE, lastAnswered, null, null, error);
  }

  // --- helpers --------------------------------------------------------------------------------

  /** A nonce nobody can predict (16 random bytes, base64url), so no answer can be prepared in advance. */
  static String nonce() {
    byte[] bytes = new byte[16];
    RANDOM.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  private URI uri(String path) {
    return URI.create(server + path);
  }

  private HttpRequest.Builder post(String path, Map<String, Object> body) {
    return HttpRequest.newBuilder(uri(path))
        .header("Content-Type", "application/json")
        .header("Accept", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(Json.write(body), StandardCharsets.UTF_8));
  }

  private static String query(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private static String segment(String value) {
    return query(value);
  }

  /** The code of a refusal that has none of its own. */
  static String codeFor(int status, String code) {
    if (code != null && !code.isEmpty()) return code;
    return switch (status) {
      case 400, 422 -> "INVALID";
      case 401 -> "UNAUTHENTICATED";
      case 403 -> "FORBIDDEN";
      case 404 -> "NOT_FOUND";
      case 429 -> "TOO_MANY_REQUESTS";
      default -> "HTTP_" + status;
    };
  }

  /** A verified non-2xx answer as the refusal it is. */
  private RefusedException refusal(AnswerVerifier.Checked checked) throws UnverifiableException {
    Fields body = checked.body();
    int status = checked.raw().status();
    Object code = body.raw("code");
    Object message = body.raw("message");
    Map<String, List<String>> errors = new LinkedHashMap<>();
    if (body.raw("errors") instanceof Map<?, ?> fields) {
      for (Map.Entry<?, ?> entry : fields.entrySet()) {
        List<String> messages = new ArrayList<>();
        if (entry.getValue() instanceof List<?> list) {
          for (Object item : list) if (item instanceof String s) messages.add(s);
        } else if (entry.getValue() instanceof String s) {
          messages.add(s);
        }
        errors.put(String.valueOf(entry.getKey()), List.copyOf(messages));
      }
    }
    Instant fileExpiresAt = null;
    if (body.raw("fileExpiresAt") instanceof String at) {
      try {
        fileExpiresAt = Instant.parse(at);
      } catch (java.time.format.DateTimeParseException e) {
        throw new UnverifiableException("the refusal's fileExpiresAt is not a time: " + at);
      }
    }
    return new RefusedException(codeFor(status, code instanceof String c ? c : null),
        message instanceof String m ? m : "HTTP " + status, status,
        Transport.retryAfter(checked.raw().retryAfter(), clock.instant()), errors, fileExpiresAt);
  }

  // --- configuration --------------------------------------------------------------------------

  /** Settings for a {@link DepotClient}; {@code server}, {@code productId} and a key set are required. */
  public static final class Builder {
    private String server;
    private String productId;
    private String jwksText;
    private Path jwksFile;
    private boolean fetchJwks;
    private Duration timeout = Duration.ofSeconds(10);
    private int retries = 2;
    private Duration maxRetryWait = Duration.ofSeconds(30);
    private Duration maxClockSkew = Duration.ofSeconds(300);
    private Duration offlineGrace = Duration.ofDays(7);
    private Path stateDir;
    private String userAgent = "depot-client-java/" + VERSION;
    private Clock clock = Clock.systemUTC();
    private HttpClient httpClient;

    private Builder() {}

    /** depot's base URL ({@code https://licenses.example.com}); a trailing slash is dropped. */
    public Builder server(String server) {
      this.server = server;
      return this;
    }

    /** The product this app is (a string of digits). */
    public Builder productId(String productId) {
      this.productId = productId;
      return this;
    }

    /** The pinned key set: the JSON text of {@code /.well-known/jwks.json}, shipped with the app. */
    public Builder jwks(String jwksJson) {
      this.jwksText = jwksJson;
      this.jwksFile = null;
      return this;
    }

    /** The pinned key set from a file shipped with the app (read once, by {@link #build()}). */
    public Builder jwks(Path jwksFile) {
      this.jwksFile = jwksFile;
      this.jwksText = null;
      return this;
    }

    /**
     * Also fetch the key set from the server (at first use, and again on an unknown kid). Weaker: a
     * fake server publishes its own keys. With a pinned set only the pinned keys are trusted, so it
     * is for development without one.
     */
    public Builder fetchJwks(boolean fetchJwks) {
      this.fetchJwks = fetchJwks;
      return this;
    }

    /** Per attempt, connect to last byte (downloads: between bytes). Default 10 s. */
    public Builder timeout(Duration timeout) {
      this.timeout = positive(timeout, "timeout");
      return this;
    }

    /** Extra attempts after a connection failure, a timeout, 502–504 or a 429 (Retry-After within maxRetryWait). Default 2. */
    public Builder retries(int retries) {
      if (retries < 0) throw new IllegalArgumentException("retries must be 0 or more");
      this.retries = retries;
      return this;
    }

    /** The longest wait a retry may take. Default 30 s. */
    public Builder maxRetryWait(Duration maxRetryWait) {
      this.maxRetryWait = notNegative(maxRetryWait, "maxRetryWait");
      return this;
    }

    /** How far a signature's {@code created} may be from the clock. Default 300 s. */
    public Builder maxClockSkew(Duration maxClockSkew) {
      this.maxClockSkew = notNegative(maxClockSkew, "maxClockSkew");
      return this;
    }

    /** How long {@code status()} trusts the last verified answer when depot cannot be reached. Default 7 days. */
    public Builder offlineGrace(Duration offlineGrace) {
      this.offlineGrace = notNegative(offlineGrace, "offlineGrace");
      return this;
    }

    /** Where {@code status()} keeps the last verified answer and license file (default: memory only). */
    public Builder stateDir(Path stateDir) {
      this.stateDir = stateDir;
      return this;
    }

    /** Sent on every request. Default {@code depot-client-java/0.1.0}. */
    public Builder userAgent(String userAgent) {
      this.userAgent = Objects.requireNonNull(userAgent, "userAgent");
      return this;
    }

    /** What "now" is (for tests). Default the system clock. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** The HTTP client to send with (a proxy, a TLS setup of the app's own). Default: HTTP/1.1, no redirects. */
    public Builder httpClient(HttpClient httpClient) {
      this.httpClient = httpClient;
      return this;
    }

    /**
     * @throws IllegalStateException when a required setting is missing or malformed, or the pinned
     *     key set cannot be read or holds no Ed25519 key
     */
    public DepotClient build() {
      if (server == null || !server.matches("(?i)^https?://[^/\\s]+.*")) {
        throw new IllegalStateException("server must be an http(s) URL, got " + (server == null ? "nothing" : "\"" + server + "\""));
      }
      server = server.replaceAll("/+$", "");
      if (productId == null || !productId.matches("[0-9]{1,20}")) {
        throw new IllegalStateException("productId must be a string of digits, got " + (productId == null ? "nothing" : "\"" + productId + "\""));
      }
      HttpClient http = httpClient != null ? httpClient
          : HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_1_1)
              .connectTimeout(timeout)
              .followRedirects(HttpClient.Redirect.NEVER)
              .build();
      Transport transport = new Transport(http, timeout, retries, maxRetryWait, userAgent, clock);
      KeySet keys;
      if (jwksText != null || jwksFile != null) {
        String text = jwksText;
        if (jwksFile != null) {
          try {
            text = Files.readString(jwksFile, StandardCharsets.UTF_8);
          } catch (IOException e) {
            throw new IllegalStateException("cannot read " + jwksFile + ": " + e, e);
          }
        }
        try {
          keys = KeySet.pinned(text, jwksFile == null ? null : jwksFile.toString());
        } catch (UnverifiableException e) {
          throw new IllegalStateException((jwksFile == null ? "the pinned JWKS" : jwksFile.toString()) + ": " + e.getMessage(), e);
        }
      } else if (fetchJwks) {
        String where = server + "/.well-known/jwks.json";
        keys = KeySet.fetched(() -> {
          RawAnswer answer = transport.send(HttpRequest.newBuilder(URI.create(where)).header("Accept", "application/json").GET(), server);
          if (answer.status() != 200) throw new UnreachableException("cannot fetch " + where + ": HTTP " + answer.status());
          return answer.body();
        }, clock);
      } else {
        throw new IllegalStateException("a pinned key set (jwks) is required, or fetchJwks(true)");
      }
      return new DepotClient(this, keys, transport);
    }

    private static Duration positive(Duration d, String name) {
      if (d == null || d.isNegative() || d.isZero()) throw new IllegalArgumentException(name + " must be positive");
      return d;
    }

    private static Duration notNegative(Duration d, String name) {
      if (d == null || d.isNegative()) throw new IllegalArgumentException(name + " must not be negative");
      return d;
    }
  }
}
