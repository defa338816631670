package io.github.depothq.depot;

import static io.github.depothq.depot.Check.contains;
import static io.github.depothq.depot.Check.eq;
import static io.github.depothq.depot.Check.fails;
import static io.github.depothq.depot.Check.ok;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Against a small HTTP server in the test, answers signed by a key made here (and pinned), each with
 * exactly one thing wrong: what a real depot cannot be made to do.
 */
public final class LocalServerTest {
  static final String KEY = "AAAAA-BBBBB-CCCCC-DDDDD-EEEEE";
  static final String PRODUCT = "1";
  static LocalServer server;
  static TestSigner signer;

  static void setUp() throws Exception {
    server = new LocalServer();
    signer = new TestSigner();
  }

  static void tearDown() {
    server.close();
  }

  static DepotClient.Builder builder() {
    return DepotClient.builder()
        .server(server.url())
        .productId(PRODUCT)
        .jwks(signer.jwks())
        .timeout(Duration.ofSeconds(5))
        .maxRetryWait(Duration.ofSeconds(3));
  }

  static DepotClient client() {
    return builder().build();
  }

  static Map<String, Object> license(String key, String productId) {
    Map<String, Object> l = new LinkedHashMap<>();
    l.put("id", "00000000-0000-4000-8000-000000000001");
    l.put("userId", "1");
    l.put("creatorId", "1");
    l.put("productId", productId);
    l.put("expires", null);
    l.put("maxIps", 5L);
    l.put("key", key);
    l.put("createdAt", "2026-01-01T00:00:00.000Z");
    l.put("updatedAt", "2026-01-01T00:00:00.000Z");
    return l;
  }

  static Map<String, Object> validation(Object nonce, String key, String productId, String code) {
    Map<String, Object> v = new LinkedHashMap<>();
    v.put("valid", code.equals("VALID"));
    v.put("code", code);
    v.put("detail", "…");
    v.put("ts", "2026-01-01T00:00:00.000Z");
    v.put("nonce", nonce);
    v.put("license", key == null ? null : license(key, productId));
    v.put("ips", Map.of("count", 1L, "max", 5L));
    return v;
  }

  /** A valid, signed answer to whatever validate sent. */
  static LocalServer.Reply valid(LocalServer.Request r) throws Exception {
    return signer.reply(200, validation(r.nonce(), KEY, PRODUCT, "VALID"));
  }

  /** Polls {@code condition} for up to 15 s (the machine may be busy): timing is not what is tested. */
  static void waitFor(java.util.function.BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.nanoTime() + 15_000_000_000L;
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) throw new AssertionError("not within 15 s: " + what);
      Thread.sleep(20);
    }
  }

  static Map<String, Object> machine(String id, String fingerprint) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", id);
    m.put("licenseId", "00000000-0000-4000-8000-000000000001");
    m.put("fingerprint", fingerprint);
    m.put("name", null);
    m.put("platform", null);
    m.put("hostname", null);
    m.put("createdAt", "2026-01-01T00:00:00.000Z");
    m.put("lastHeartbeatAt", "2026-01-01T00:00:00.000Z");
    m.put("alive", true);
    return m;
  }

  // --- the checks, one broken at a time -------------------------------------------------------

  @Test
  public void aValidAnswerVerifies() throws Exception {
    server.respond(LocalServerTest::valid);
    Validation v = client().validate(KEY);
    ok(v.valid(), "valid");
    eq("VALID", v.code());
    eq(KEY, v.license().key());
    eq(5, v.ips().max());
    LocalServer.Request sent = server.requests.get(0);
    eq("/api/v1/licenses/validate", sent.path());
    eq(PRODUCT, sent.json().get("productId"));
    ok(((String) sent.json().get("nonce")).matches("[A-Za-z0-9_-]{22}"), "a 16-byte base64url nonce");
    eq("depot-client-java/0.1.0", sent.header("User-Agent"));
  }

  @Test
  public void aFreshNoncePerRequest() throws Exception {
    server.respond(LocalServerTest::valid);
    DepotClient c = client();
    c.validate(KEY);
    c.validate(KEY);
    ok(!server.requests.get(0).nonce().equals(server.requests.get(1).nonce()), "two nonces");
  }

  @Test
  public void unsigned() {
    server.respond(r -> LocalServer.Reply.plain(200, "application/json", Json.write(validation(r.nonce(), KEY, PRODUCT, "VALID"))));
    fails(UnverifiableException.class, "the answer is not signed", () -> client().validate(KEY));
  }

  @Test
  public void badDigest() {
    server.respond(r -> {
      LocalServer.Reply reply = valid(r);
      // The body changed after signing: the old digest (and its signature) stay.
      String tampered = new String(reply.body(), StandardCharsets.UTF_8).replace("\"maxIps\":5", "\"maxIps\":9");
      return reply.withBody(tampered.getBytes(StandardCharsets.UTF_8));
    });
    fails(UnverifiableException.class, "the body does not match its Content-Digest", () -> client().validate(KEY));
  }

  @Test
  public void unknownKid() {
    server.respond(r -> {
      byte[] body = Json.write(validation(r.nonce(), KEY, PRODUCT, "VALID")).getBytes(StandardCharsets.UTF_8);
      return new LocalServer.Reply(200, signer.headers(200, "application/json", body, Instant.now().getEpochSecond(), "someone-else"), body);
    });
    fails(UnverifiableException.class, "the key \"someone-else\" is not pinned", () -> client().validate(KEY));
  }

  @Test
  public void signedByAnotherKeyUnderOurKid() {
    TestSigner forger = new TestSigner();
    server.respond(r -> {
      byte[] body = Json.write(validation(r.nonce(), KEY, PRODUCT, "VALID")).getBytes(StandardCharsets.UTF_8);
      return new LocalServer.Reply(200, forger.headers(200, "application/json", body, Instant.now().getEpochSecond(), signer.kid), body);
    });
    fails(UnverifiableException.class, "the signature does not verify", () -> client().validate(KEY));
  }

  @Test
  public void anotherStatusThanSigned() {
    server.respond(r -> {
      LocalServer.Reply reply = valid(r);
      return new LocalServer.Reply(201, reply.headers(), reply.body());
    });
    fails(UnverifiableException.class, "the signature does not verify", () -> client().validate(KEY));
  }

  @Test
  public void createdOutsideTheSkew() {
    for (long offset : new long[] {-301, 301}) {
      server.respond(r -> {
        byte[] body = Json.write(validation(r.nonce(), KEY, PRODUCT, "VALID")).getBytes(StandardCharsets.UTF_8);
        long created = Instant.now().getEpochSecond() + offset;
        return new LocalServer.Reply(200, signer.headers(200, "application/json", body, created, signer.kid), body);
      });
      fails(UnverifiableException.class, "the signature was created", () -> client().validate(KEY));
    }
    // Within it: fine.
    server.respond(r -> {
      byte[] body = Json.write(validation(r.nonce(), KEY, PRODUCT, "VALID")).getBytes(StandardCharsets.UTF_8);
      return new LocalServer.Reply(200, signer.headers(200, "application/json", body, Instant.now().getEpochSecond() - 290, signer.kid), body);
    });
    try {
      ok(client().validate(KEY).valid(), "290 s old is within 300 s");
    } catch (DepotException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  public void wrongNonce() {
    server.respond(r -> signer.reply(200, validation("recorded-earlier", KEY, PRODUCT, "VALID")));
    fails(UnverifiableException.class, "the answer does not echo our nonce", () -> client().validate(KEY));
    server.respond(r -> signer.reply(200, validation(null, KEY, PRODUCT, "VALID")));
    fails(UnverifiableException.class, "the answer does not echo our nonce", () -> client().validate(KEY));
    // A refusal carrying another nonce is refused too; one without a nonce is depot's plain no.
    server.respond(r -> signer.reply(409, Map.of("code", "TOO_MANY_MACHINES", "message", "full", "nonce", "old")));
    fails(UnverifiableException.class, "the answer does not echo our nonce", () -> client().activate(KEY, "fp"));
  }

  @Test
  public void anotherLicensesKeyEchoed() {
    server.respond(r -> signer.reply(200, validation(r.nonce(), "ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ", PRODUCT, "VALID")));
    fails(UnverifiableException.class, "the answer is about another license key", () -> client().validate(KEY));
    // The same key in another case or with spaces is ours.
    server.respond(r -> signer.reply(200, validation(r.nonce(), KEY.toLowerCase(), PRODUCT, "VALID")));
    try {
      ok(client().validate(" " + KEY + " ").valid(), "compared upper-cased and trimmed");
    } catch (DepotException e) {
      throw new AssertionError(e);
    }
    // VALID about no license at all is about no license of ours.
    server.respond(r -> signer.reply(200, validation(r.nonce(), null, PRODUCT, "VALID")));
    fails(UnverifiableException.class, "the answer is about another license key", () -> client().validate(KEY));
  }

  @Test
  public void anotherProduct() throws Exception {
    server.respond(r -> signer.reply(200, validation(r.nonce(), KEY, "2", "VALID")));
    fails(UnverifiableException.class, "the answer is about another product", () -> client().validate(KEY));
    // PRODUCT_MISMATCH is the one answer that names another product: it is what it says.
    server.respond(r -> signer.reply(200, validation(r.nonce(), KEY, "2", "PRODUCT_MISMATCH")));
    Validation v = client().validate(KEY);
    ok(!v.valid(), "not valid");
    eq("PRODUCT_MISMATCH", v.code());
    // ...and only another product: PRODUCT_MISMATCH about this one says what depot never does.
    server.respond(r -> signer.reply(200, validation(r.nonce(), KEY, PRODUCT, "PRODUCT_MISMATCH")));
    fails(UnverifiableException.class, "the answer is about another product", () -> client().validate(KEY));
    // depot decides REVOKED and EXPIRED before it compares products: any product's, genuine.
    for (String code : List.of("REVOKED", "EXPIRED")) {
      server.respond(r -> signer.reply(200, validation(r.nonce(), KEY, "2", code)));
      eq(code, client().validate(KEY).code());
    }
  }

  @Test
  public void aValidationWithAFingerprintNamesTheMachine() throws Exception {
    // depot names the machine (or null) whenever a fingerprint came: without it, the request lost it.
    server.respond(r -> signer.reply(200, validation(r.nonce(), KEY, PRODUCT, "VALID")));
    fails(UnverifiableException.class, "names no machine", () -> client().validate(KEY, "fp-mine"));
    server.respond(r -> {
      Map<String, Object> v = validation(r.nonce(), KEY, PRODUCT, "NOT_ACTIVATED");
      v.put("machine", null);
      return signer.reply(200, v);
    });
    eq("NOT_ACTIVATED", client().validate(KEY, "fp-mine").code());
  }

  @Test
  public void anotherMachine() {
    server.respond(r -> {
      Map<String, Object> v = validation(r.nonce(), KEY, PRODUCT, "VALID");
      v.put("machine", machine("m-1", "fp-other"));
      return signer.reply(200, v);
    });
    fails(UnverifiableException.class, "the answer is about another machine", () -> client().validate(KEY, "fp-mine"));
    server.respond(r -> {
      Map<String, Object> a = new LinkedHashMap<>();
      a.put("machine", machine("m-1", "fp-other"));
      a.put("license", license(KEY, PRODUCT));
      a.put("nonce", r.nonce());
      return signer.reply(201, a);
    });
    fails(UnverifiableException.class, "the answer is about another machine", () -> client().activate(KEY, "fp-mine"));
    server.respond(r -> signer.reply(200, Map.of("machine", machine("m-2", "fp-mine"), "nonce", r.nonce())));
    fails(UnverifiableException.class, "the answer is about another machine", () -> client().heartbeat(KEY, "m-1"));
  }

  @Test
  public void nonJsonBody() {
    server.respond(r -> {
      byte[] body = "<html>valid</html>".getBytes(StandardCharsets.UTF_8);
      return new LocalServer.Reply(200, signer.headers(200, "text/html", body, Instant.now().getEpochSecond(), signer.kid), body);
    });
    fails(UnverifiableException.class, "the signed body is not JSON", () -> client().validate(KEY));
  }

  @Test
  public void unsupportedSignatureInput() {
    server.respond(r -> valid(r).withHeader("Signature-Input",
        "depot=(\"@status\" \"content-digest\");created=" + Instant.now().getEpochSecond() + ";keyid=\"" + signer.kid + "\";alg=\"ed25519\""));
    fails(UnverifiableException.class, "unsupported Signature-Input", () -> client().validate(KEY));
    server.respond(r -> {
      LocalServer.Reply reply = valid(r);
      return reply.withHeader("Signature-Input", reply.headers().get("Signature-Input") + ", proxy=(\"@status\");created=1;keyid=\"p\";alg=\"ed25519\"");
    });
    fails(UnverifiableException.class, "unsupported Signature-Input", () -> client().validate(KEY));
    server.respond(r -> {
      LocalServer.Reply reply = valid(r);
      return reply.withHeader("Signature-Input", reply.headers().get("Signature-Input").replace("alg=\"ed25519\"", "alg=\"rsa-pss-sha512\""));
    });
    fails(UnverifiableException.class, "signature alg is rsa-pss-sha512", () -> client().validate(KEY));
  }

  // --- retries, timeouts, refusals ------------------------------------------------------------

  @Test
  public void retriedAfter503() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    server.respond(r -> calls.incrementAndGet() == 1 ? LocalServer.Reply.plain(503, "application/json", "{\"message\":\"Database unavailable.\"}") : valid(r));
    ok(client().validate(KEY).valid(), "valid on the second attempt");
    eq(2, calls.get(), "attempts");
    eq(server.requests.get(0).nonce(), server.requests.get(1).nonce(), "a retry is the same request");
  }

  @Test
  public void a503ThroughEveryRetryIsUnreachable() {
    server.respond(r -> LocalServer.Reply.plain(503, "text/plain", "down").withHeader("Retry-After", "0"));
    fails(UnreachableException.class, "answered HTTP 503 after 3 attempts", () -> client().validate(KEY));
    eq(3, server.requests.size(), "1 + 2 retries");
    server.respond(r -> LocalServer.Reply.plain(500, "text/plain", "bug"));
    fails(UnreachableException.class, "answered HTTP 500", () -> client().validate(KEY));
    eq(1, server.requests.size(), "a 500 is not retried");
  }

  @Test
  public void tooManyRequestsWithRetryAfter() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    server.respond(r -> calls.incrementAndGet() == 1
        ? LocalServer.Reply.plain(429, "application/json", "{\"message\":\"Too Many Attempts.\"}").withHeader("Retry-After", "1")
        : valid(r));
    long started = System.nanoTime();
    ok(client().validate(KEY).valid(), "valid after waiting");
    ok(System.nanoTime() - started >= 900_000_000L, "waited the Retry-After second");
    eq(2, calls.get());

    // Longer than maxRetryWait: not retried; depot's signed refusal says why and for how long.
    server.respond(r -> signer.reply(429, Map.of("code", "TOO_MANY_ACTIVATIONS", "message", "20 a day.")).withHeader("Retry-After", "3600"));
    RefusedException e = fails(RefusedException.class, () -> client().activate(KEY, "fp"));
    eq("TOO_MANY_ACTIVATIONS", e.code());
    eq(429, e.status());
    eq(Duration.ofSeconds(3600), e.retryAfter().orElseThrow());
    eq(1, server.requests.size(), "not retried");
  }

  @Test
  public void timeoutIsUnreachable() {
    server.respond(r -> valid(r).delayed(3_000));
    long started = System.nanoTime();
    fails(UnreachableException.class, "no answer within 500 ms",
        () -> builder().timeout(Duration.ofMillis(500)).retries(0).build().validate(KEY));
    ok(System.nanoTime() - started < 2_900_000_000L, "gave up at the timeout, not at the answer 3 s later");
  }

  @Test
  public void connectionRefusedIsUnreachable() throws Exception {
    int port;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      port = s.getLocalPort();
    }
    DepotClient c = DepotClient.builder().server("http://127.0.0.1:" + port).productId("1").jwks(signer.jwks())
        .retries(1).maxRetryWait(Duration.ofMillis(100)).build();
    fails(UnreachableException.class, "cannot reach http://127.0.0.1:" + port + ": connection refused", () -> c.validate(KEY));
  }

  @Test
  public void refusals() throws Exception {
    Map<String, Object> invalid = new LinkedHashMap<>();
    invalid.put("message", "The given data was invalid.");
    invalid.put("errors", Map.of("key", List.of("The key may not be greater than 200 characters.")));
    server.respond(r -> signer.reply(422, invalid));
    RefusedException e = fails(RefusedException.class, () -> client().validate(KEY));
    eq("INVALID", e.code());
    eq(422, e.status());
    eq(List.of("The key may not be greater than 200 characters."), e.errors().get("key"));
    eq("The given data was invalid.", e.reason());

    server.respond(r -> signer.reply(410, Map.of("code", "HEARTBEAT_DEAD", "message", "activate again")));
    eq("HEARTBEAT_DEAD", fails(RefusedException.class, () -> client().heartbeat(KEY, "m-1")).code());
    server.respond(r -> signer.reply(404, Map.of("message", "Machine not found.")));
    eq("NOT_FOUND", fails(RefusedException.class, () -> client().deactivate(KEY, "m-1")).code());
    // An unsigned refusal is not depot's: unverifiable.
    server.respond(r -> LocalServer.Reply.plain(404, "application/json", "{\"message\":\"Machine not found.\"}"));
    fails(UnverifiableException.class, "the answer is not signed", () -> client().heartbeat(KEY, "m-1"));
  }

  @Test
  public void refusalsWithoutACodeAreNamedByTheirStatus() throws Exception {
    Map<Integer, String> codes = new LinkedHashMap<>();
    codes.put(400, "INVALID");
    codes.put(401, "UNAUTHENTICATED");
    codes.put(403, "FORBIDDEN");
    codes.put(404, "NOT_FOUND");
    codes.put(409, "HTTP_409");
    codes.put(410, "HTTP_410");
    codes.put(422, "INVALID");
    codes.put(429, "TOO_MANY_REQUESTS");
    for (Map.Entry<Integer, String> each : codes.entrySet()) {
      server.respond(r -> signer.reply(each.getKey(), Map.of("message", "No.")));
      RefusedException e = fails(RefusedException.class, () -> builder().retries(0).build().validate(KEY));
      eq(each.getValue(), e.code(), "HTTP " + each.getKey());
    }
  }

  @Test
  public void machineFileValidCarriesTheFileExpiry() throws Exception {
    server.respond(r -> signer.reply(409, Map.of("code", "MACHINE_FILE_VALID", "message", "Held.",
        "fileExpiresAt", "2026-12-04T23:12:21.000Z")));
    RefusedException e = fails(RefusedException.class, () -> client().deactivate(KEY, "m-1"));
    eq("MACHINE_FILE_VALID", e.code());
    eq(409, e.status());
    eq(java.util.Optional.of(Instant.parse("2026-12-04T23:12:21Z")), e.fileExpiresAt());
    eq(null, server.requests.get(0).param("nonce"), "depot takes no nonce there");
    server.respond(r -> signer.reply(404, Map.of("code", "NOT_FOUND", "message", "No.")));
    eq(java.util.Optional.empty(), fails(RefusedException.class, () -> client().deactivate(KEY, "m-1")).fileExpiresAt());
  }

  @Test
  public void anActivationOnALicenseOfAnotherProductIsRefused() throws Exception {
    server.respond(r -> {
      Map<String, Object> a = new LinkedHashMap<>();
      a.put("machine", machine("m-1", "fp-1"));
      a.put("license", license(KEY, "2"));
      a.put("nonce", r.nonce());
      return signer.reply(201, a);
    });
    RefusedException e = fails(RefusedException.class, () -> client().activate(KEY, "fp-1"));
    eq("PRODUCT_MISMATCH", e.code());
    eq(201, e.status());
  }

  @Test
  public void deactivateTakesTheUnsigned204() throws Exception {
    server.respond(r -> new LocalServer.Reply(204, Map.of(), new byte[0]));
    client().deactivate(KEY, "m-1");
    eq("DELETE", server.requests.get(0).method());
    eq("/api/v1/machines/m-1", server.requests.get(0).path());
    eq("License " + KEY, server.requests.get(0).header("Authorization"));
  }

  @Test
  public void tooLargeAnswer() {
    server.respond(r -> LocalServer.Reply.plain(200, "application/json", "[" + "0,".repeat(3 << 20) + "0]"));
    fails(UnverifiableException.class, "larger than", () -> client().validate(KEY));
  }

  // --- machines and the heartbeat helper ------------------------------------------------------

  @Test
  public void activateAndHeartbeat() throws Exception {
    server.respond(r -> {
      if (r.path().endsWith("/activate")) {
        Map<String, Object> a = new LinkedHashMap<>();
        a.put("machine", machine("m-1", "fp-1"));
        a.put("license", license(KEY, PRODUCT));
        a.put("nonce", r.nonce());
        return signer.reply(201, a);
      }
      return signer.reply(200, Map.of("machine", machine("m-1", "fp-1"), "nonce", r.nonce()));
    });
    Activation a = client().activate(KEY, "fp-1", new MachineInfo("Ada's laptop", "linux-x64", "ada"));
    ok(a.created(), "201: created");
    eq("m-1", a.machine().id());
    Map<?, ?> sent = server.requests.get(0).json();
    eq("Ada's laptop", sent.get("name"));
    eq("linux-x64", sent.get("platform"));
    eq("ada", sent.get("hostname"));
    Machine m = client().heartbeat(KEY, "m-1");
    ok(m.alive(), "alive");
    LocalServer.Request beat = server.requests.get(server.requests.size() - 1);
    eq("/api/v1/machines/m-1/heartbeat", beat.path());
    ok(beat.param("nonce") != null, "the nonce in the query");
  }

  @Test
  public void heartbeatHelperBeatsUntilStopped() throws Exception {
    server.respond(r -> signer.reply(200, Map.of("machine", machine("m-1", "fp-1"), "nonce", r.nonce())));
    Heartbeat h = client().startHeartbeat(KEY, "m-1", Duration.ofMillis(200), null);
    waitFor(() -> server.requests.size() >= 3, "one at once, then every 200 ms");
    h.stop();
    int beats = server.requests.size();
    ok(!h.isRunning(), "stopped");
    eq("m-1", h.lastMachine().id());
    Thread.sleep(500);
    eq(beats, server.requests.size(), "no heartbeat after stop()");
  }

  @Test
  public void heartbeatHelperStopsWhenTheMachineIsDead() throws Exception {
    server.respond(r -> signer.reply(410, Map.of("code", "HEARTBEAT_DEAD", "message", "activate again")));
    List<DepotException> errors = new CopyOnWriteArrayList<>();
    try (Heartbeat h = client().startHeartbeat(KEY, "m-1", Duration.ofMillis(100), errors::add)) {
      waitFor(() -> !h.isRunning(), "stopped by HEARTBEAT_DEAD");
      Thread.sleep(300);
    }
    eq(1, server.requests.size(), "no heartbeat after it died");
    eq("HEARTBEAT_DEAD", ((RefusedException) errors.get(0)).code());
  }

  @Test
  public void heartbeatHelperStopsOnAnyRefusal() throws Exception {
    // No later heartbeat mends a refusal, whatever its code.
    server.respond(r -> signer.reply(422, Map.of("message", "The nonce field is invalid.")));
    List<DepotException> errors = new CopyOnWriteArrayList<>();
    try (Heartbeat h = client().startHeartbeat(KEY, "m-1", Duration.ofMillis(100), errors::add)) {
      waitFor(() -> !h.isRunning(), "stopped by a refusal");
      Thread.sleep(300);
    }
    eq(1, server.requests.size(), "no heartbeat after a refusal");
    eq("INVALID", ((RefusedException) errors.get(0)).code());
  }

  @Test
  public void heartbeatHelperGoesOnThroughAnOutage() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    server.respond(r -> calls.incrementAndGet() <= 2 ? LocalServer.Reply.plain(500, "text/plain", "down")
        : signer.reply(200, Map.of("machine", machine("m-1", "fp-1"), "nonce", r.nonce())));
    List<DepotException> errors = new CopyOnWriteArrayList<>();
    try (Heartbeat h = client().startHeartbeat(KEY, "m-1", Duration.ofMillis(100), errors::add)) {
      waitFor(() -> h.lastMachine() != null, "a later heartbeat got through");
      ok(h.isRunning(), "still beating");
    }
    ok(errors.size() >= 2 && errors.get(0) instanceof UnreachableException, "the outage reported: " + errors);
  }

  // --- the upgrade check ----------------------------------------------------------------------

  static Map<String, Object> upgradeAnswer(LocalServer.Request r) {
    Map<String, Object> u = new LinkedHashMap<>();
    boolean newer = !"1.1.0".equals(r.param("version"));
    u.put("upgrade", newer);
    u.put("current", r.param("version"));
    u.put("product_id", PRODUCT);
    u.put("platform", r.param("platform") == null ? "any" : r.param("platform"));
    u.put("arch", r.param("arch") == null ? "any" : r.param("arch"));
    u.put("channel", r.param("channel") == null ? "stable" : r.param("channel"));
    u.put("nonce", r.param("nonce"));
    if (!newer) {
      u.put("version", null);
      return u;
    }
    Map<String, Object> artifact = new LinkedHashMap<>();
    artifact.put("id", 12L);
    artifact.put("version_id", 7L);
    artifact.put("platform", "linux");
    artifact.put("arch", "x86_64");
    artifact.put("file_name", "app-1.1.0.tar.gz");
    artifact.put("file_size", 5L);
    artifact.put("sha256", "x");
    artifact.put("sha512", null);
    artifact.put("content_type", "application/gzip");
    artifact.put("signature", null);
    artifact.put("download_url", "http://127.0.0.1/f");
    artifact.put("created_at", "2026-01-01T00:00:00.000Z");
    Map<String, Object> version = new LinkedHashMap<>();
    version.put("id", 7L);
    version.put("version_number", "1.1.0");
    version.put("title", "1.1.0");
    version.put("changelog", "- faster");
    version.put("critical", false);
    version.put("published_at", "2026-01-01T00:00:00.000Z");
    version.put("artifacts", List.of(artifact));
    u.put("version", version);
    return u;
  }

  @Test
  public void upgradeCheck() throws Exception {
    server.respond(r -> signer.reply(200, upgradeAnswer(r)));
    Upgrade u = client().checkForUpdate(KEY, "1.0.0", UpdateTarget.of("linux", "x86_64").withStagingId("user-7"));
    ok(u.upgrade(), "an upgrade");
    eq("1.1.0", u.version());
    eq("app-1.1.0.tar.gz", u.artifacts().get(0).fileName());
    LocalServer.Request sent = server.requests.get(0);
    eq("/api/v1/products/1/upgrade", sent.path());
    eq("License " + KEY, sent.header("Authorization"));
    eq("user-7", sent.header("x-user-staging-id"));
    Upgrade none = client().checkForUpdate(KEY, "1.1.0");
    ok(!none.upgrade(), "nothing newer");
    eq(null, none.version());
    eq("any", none.platform());
  }

  @Test
  public void upgradeAboutAnotherSubject() {
    String[][] cases = {
      {"product_id", "2", "another product"},
      {"platform", "windows", "another platform"},
      {"arch", "aarch64", "another arch"},
      {"channel", "beta", "another channel"},
      {"current", "9.9.9", "another current version"},
    };
    for (String[] c : cases) {
      server.respond(r -> {
        Map<String, Object> u = upgradeAnswer(r);
        u.put(c[0], c[1]);
        return signer.reply(200, u);
      });
      fails(UnverifiableException.class, c[2], () -> client().checkForUpdate(KEY, "1.0.0", UpdateTarget.of("linux", "x86_64")));
    }
  }

  // --- keys fetched from the server (fetchJwks) -----------------------------------------------

  @Test
  public void fetchedKeysAndARotation() throws Exception {
    TestSigner next = new TestSigner();
    AtomicInteger jwksFetches = new AtomicInteger();
    String[] published = {signer.jwks()};
    TestSigner[] signing = {signer};
    server.respond(r -> {
      if (r.path().equals("/.well-known/jwks.json")) {
        jwksFetches.incrementAndGet();
        return LocalServer.Reply.plain(200, "application/json", published[0]);
      }
      return signing[0].reply(200, validation(r.nonce(), KEY, PRODUCT, "VALID"));
    });
    DepotClient c = DepotClient.builder().server(server.url()).productId(PRODUCT).fetchJwks(true).build();
    ok(c.validate(KEY).valid(), "with the fetched key");
    eq(1, jwksFetches.get(), "fetched at first use");
    // A rotation: the server signs with a key its JWKS now publishes; one refetch finds it.
    published[0] = "{\"keys\":[" + signer.jwks().substring(9, signer.jwks().length() - 2) + "," + next.jwks().substring(9);
    signing[0] = next;
    ok(c.validate(KEY).valid(), "after the rotation");
    eq(2, jwksFetches.get(), "fetched again for the unknown kid");
    // Pinned keys are never fetched, and a rotated-in key is not trusted until the app ships it.
    DepotClient pinned = DepotClient.builder().server(server.url()).productId(PRODUCT).jwks(signer.jwks()).fetchJwks(true).build();
    fails(UnverifiableException.class, "is not pinned", () -> pinned.validate(KEY));
    eq(2, jwksFetches.get(), "a pinned client fetches nothing");
  }

  // --- status(): offline-first ----------------------------------------------------------------

  @Test
  public void statusOnlineThenCacheThenLicenseFileThenNone() throws Exception {
    Path state = Files.createTempDirectory("depot-state");
    Instant start = Instant.now();
    MutableClock clock = new MutableClock(start);
    DepotClient c = builder().clock(clock).stateDir(state).retries(0).build();

    server.respond(LocalServerTest::valid);
    Status online = c.status(KEY);
    ok(online.valid(), "online: valid");
    eq(Status.Source.ONLINE, online.source());
    eq(null, online.error());

    // depot goes away: the kept answer stands in, verified again, within offlineGrace.
    server.respond(r -> LocalServer.Reply.plain(503, "text/plain", "down"));
    clock.now = start.plus(Duration.ofDays(6));
    Status cached = c.status(KEY);
    ok(cached.valid(), "cache: valid");
    eq(Status.Source.CACHE, cached.source());
    ok(cached.error() instanceof UnreachableException, "says why it is offline");
    ok(cached.checkedAt() != null && !cached.checkedAt().isAfter(start.plusSeconds(1)), "checked when depot said so");

    // A fresh client on the same state directory (a restart) finds it too.
    DepotClient restarted = builder().clock(clock).stateDir(state).retries(0).build();
    eq(Status.Source.CACHE, restarted.status(KEY).source());
    // ...but not for another fingerprint.
    eq(Status.Source.NONE, restarted.status(KEY, "another-machine").source());

    // An answer that does not verify (a fake in depot's place) does not replace what was kept.
    server.respond(r -> LocalServer.Reply.plain(200, "application/json", Json.write(validation(r.nonce(), KEY, PRODUCT, "REVOKED"))));
    Status faked = c.status(KEY);
    eq(Status.Source.CACHE, faked.source());
    ok(faked.valid(), "the fake's REVOKED is not believed");
    ok(faked.error() instanceof UnverifiableException, "the fake is the error");

    // Past the grace: only a license file can stand in.
    clock.now = start.plus(Duration.ofDays(8));
    server.respond(r -> LocalServer.Reply.plain(503, "text/plain", "down"));
    Status none = c.status(KEY);
    ok(!none.valid(), "nothing left");
    eq(Status.Source.NONE, none.source());
    eq("UNREACHABLE", none.code());
    eq(online.checkedAt(), none.checkedAt(), "still says when depot last answered");

    // A checkout kept a license file valid for 30 days from now.
    clock.now = start;
    server.respond(r -> {
      Map<String, Object> v = validation(r.nonce(), KEY, PRODUCT, "VALID");
      v.put("license_file", signer.licenseFile(signer.fileHeader(), claims(start, start.plus(Duration.ofDays(30)))));
      v.put("license_file_expires_at", start.plus(Duration.ofDays(30)).toString());
      return signer.reply(200, v);
    });
    ok(c.checkout(KEY).licenseFile() != null, "a file");
    clock.now = start.plus(Duration.ofDays(8));
    server.respond(r -> LocalServer.Reply.plain(503, "text/plain", "down"));
    Status fromFile = builder().clock(clock).stateDir(state).retries(0).build().status(KEY);
    ok(fromFile.valid(), "the file stands in");
    eq(Status.Source.LICENSE_FILE, fromFile.source());
    eq("licenseFile", fromFile.source().wireName());
    // Past the file's exp: none, and unverifiable when the answer was a fake's.
    clock.now = start.plus(Duration.ofDays(31));
    server.respond(r -> LocalServer.Reply.plain(200, "application/json", "{}"));
    Status gone = c.status(KEY);
    eq(Status.Source.NONE, gone.source());
    eq("UNVERIFIABLE", gone.code());
  }

  @Test
  public void statusOfARefusalIsOnline() {
    server.respond(r -> signer.reply(422, Map.of("message", "The given data was invalid.", "errors", Map.of("key", List.of("bad")))));
    Status s = client().status(KEY);
    ok(!s.valid(), "not valid");
    eq("INVALID", s.code());
    eq(Status.Source.ONLINE, s.source());
  }

  static final class MutableClock extends Clock {
    volatile Instant now;

    MutableClock(Instant now) {
      this.now = now;
    }

    @Override
    public java.time.ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }

  // --- license files (offline) ----------------------------------------------------------------

  static Map<String, Object> claims(Instant iat, Instant exp) {
    Map<String, Object> c = new LinkedHashMap<>();
    c.put("iss", server.url());
    c.put("sub", "00000000-0000-4000-8000-000000000001");
    c.put("iat", iat.getEpochSecond());
    c.put("exp", exp.getEpochSecond());
    c.put("key", KEY);
    c.put("product_id", PRODUCT);
    c.put("user_id", "1");
    c.put("creator_id", "1");
    c.put("max_ips", 5L);
    c.put("expires", null);
    return c;
  }

  @Test
  public void licenseFiles() throws Exception {
    DepotClient c = client();
    Instant now = Instant.now();
    Map<String, Object> good = claims(now, now.plus(Duration.ofDays(30)));
    LicenseFile f = c.verifyLicenseFile(signer.licenseFile(signer.fileHeader(), good), LicenseFileCheck.forKey(KEY));
    eq(KEY, f.key());
    eq(PRODUCT, f.productId());
    eq(server.url(), f.issuer());
    eq(null, f.fingerprint());

    // One character of the payload changed.
    String tampered = TestSigner.tamperPayload(signer.licenseFile(signer.fileHeader(), good));
    fails(UnverifiableException.class, "signature verification failed", () -> c.verifyLicenseFile(tampered));

    Map<String, Object> typ = signer.fileHeader();
    typ.put("typ", "JWT");
    fails(UnverifiableException.class, "typ is JWT", () -> c.verifyLicenseFile(signer.licenseFile(typ, good)));
    Map<String, Object> alg = signer.fileHeader();
    alg.put("alg", "none");
    fails(UnverifiableException.class, "alg is none", () -> c.verifyLicenseFile(signer.licenseFile(alg, good)));
    Map<String, Object> kid = signer.fileHeader();
    kid.put("kid", "other");
    fails(UnverifiableException.class, "the key \"other\" is not pinned", () -> c.verifyLicenseFile(signer.licenseFile(kid, good)));

    Map<String, Object> iss = new LinkedHashMap<>(good);
    iss.put("iss", "http://localhost:8080");
    fails(UnverifiableException.class, "the file was issued by \"http://localhost:8080\", expected \"" + server.url() + "\"",
        () -> c.verifyLicenseFile(signer.licenseFile(signer.fileHeader(), iss)));
    Map<String, Object> product = new LinkedHashMap<>(good);
    product.put("product_id", "2");
    fails(UnverifiableException.class, "another product", () -> c.verifyLicenseFile(signer.licenseFile(signer.fileHeader(), product)));
    fails(UnverifiableException.class, "another license key",
        () -> c.verifyLicenseFile(signer.licenseFile(signer.fileHeader(), good), LicenseFileCheck.forKey("ZZZZZ")));
    fails(UnverifiableException.class, "the file is not bound to a machine",
        () -> c.verifyLicenseFile(signer.licenseFile(signer.fileHeader(), good), LicenseFileCheck.NONE.withFingerprint("fp-1")));

    Map<String, Object> bound = new LinkedHashMap<>(good);
    bound.put("fingerprint", "fp-1");
    bound.put("machine_id", "m-1");
    String boundFile = signer.licenseFile(signer.fileHeader(), bound);
    eq("m-1", c.verifyLicenseFile(boundFile, LicenseFileCheck.NONE.withFingerprint("fp-1")).machineId());
    fails(UnverifiableException.class, "the file is bound to another machine",
        () -> c.verifyLicenseFile(boundFile, LicenseFileCheck.NONE.withFingerprint("fp-2")));
  }

  @Test
  public void licenseFileTimes() throws Exception {
    DepotClient c = client();
    Instant now = Instant.now();
    String file = signer.licenseFile(signer.fileHeader(), claims(now, now.plus(Duration.ofDays(1))));
    Instant later = now.plus(Duration.ofDays(2));
    fails(UnverifiableException.class, "the file expired at", () -> c.verifyLicenseFile(file, LicenseFileCheck.NONE.withNow(later)));
    // Within a grace of two days: still good; one day is not enough.
    eq(KEY, c.verifyLicenseFile(file, LicenseFileCheck.NONE.withNow(later).withGrace(Duration.ofDays(2))).key());
    fails(UnverifiableException.class, "grace", () -> c.verifyLicenseFile(file, LicenseFileCheck.NONE.withNow(later).withGrace(Duration.ofDays(1))));

    Map<String, Object> future = claims(now.plus(Duration.ofHours(1)), now.plus(Duration.ofDays(1)));
    fails(UnverifiableException.class, "issued in the future", () -> c.verifyLicenseFile(signer.licenseFile(signer.fileHeader(), future)));
    Map<String, Object> nbf = claims(now, now.plus(Duration.ofDays(1)));
    nbf.put("nbf", now.plus(Duration.ofHours(1)).getEpochSecond());
    fails(UnverifiableException.class, "not valid before", () -> c.verifyLicenseFile(signer.licenseFile(signer.fileHeader(), nbf)));
    nbf.put("nbf", now.plusSeconds(60).getEpochSecond());
    eq(KEY, c.verifyLicenseFile(signer.licenseFile(signer.fileHeader(), nbf)).key()); // within the skew
    fails(UnverifiableException.class, "no DEPOT LICENSE FILE block", () -> c.verifyLicenseFile("eyJ.eyJ.sig"));
  }

  // --- downloads ------------------------------------------------------------------------------

  static final byte[] CONTENT = "the release, all of its bytes\n".getBytes(StandardCharsets.UTF_8);

  static Artifact artifact(String name, long size, String sha256, String sha512) {
    return new Artifact(1, 1, "linux", "x86_64", name, size, sha256, sha512, "application/octet-stream", null,
        server.url() + "/download/" + name);
  }

  static String sha256Hex(byte[] b) {
    return java.util.HexFormat.of().formatHex(AnswerVerifier.sha256(b));
  }

  static String sha512Base64(byte[] b) throws Exception {
    return Base64.getEncoder().encodeToString(java.security.MessageDigest.getInstance("SHA-512").digest(b));
  }

  /** Serves CONTENT, honouring a Range unless {@code ignoreRange}. */
  static LocalServer.Reply serve(LocalServer.Request r, boolean ignoreRange) {
    String range = r.header("Range");
    if (range != null && !ignoreRange) {
      int from = Integer.parseInt(range.replaceAll("bytes=([0-9]+)-", "$1"));
      byte[] rest = java.util.Arrays.copyOfRange(CONTENT, from, CONTENT.length);
      return new LocalServer.Reply(206, Map.of("Content-Type", "application/octet-stream",
          "Content-Range", "bytes " + from + "-" + (CONTENT.length - 1) + "/" + CONTENT.length), rest);
    }
    return new LocalServer.Reply(200, Map.of("Content-Type", "application/octet-stream"), CONTENT);
  }

  @Test
  public void downloadsAndChecks() throws Exception {
    Path dir = Files.createTempDirectory("depot-dl");
    server.respond(r -> serve(r, false));
    List<Long> progress = new ArrayList<>();
    Path file = client().download(KEY, artifact("app.tar.gz", CONTENT.length, sha256Hex(CONTENT), sha512Base64(CONTENT)), dir,
        (received, total) -> progress.add(received));
    eq(dir.resolve("app.tar.gz").toAbsolutePath(), file);
    eq(new String(CONTENT, StandardCharsets.UTF_8), Files.readString(file));
    ok(!Files.exists(dir.resolve("app.tar.gz.part")), "no part left");
    eq(KEY, server.requests.get(0).header("X-License-Key"));
    eq((long) CONTENT.length, progress.get(progress.size() - 1));
  }

  @Test
  public void downloadResumesAPart() throws Exception {
    Path dir = Files.createTempDirectory("depot-dl");
    Files.write(dir.resolve("app.tar.gz.part"), java.util.Arrays.copyOf(CONTENT, 10));
    server.respond(r -> serve(r, false));
    Path file = client().download(KEY, artifact("app.tar.gz", CONTENT.length, sha256Hex(CONTENT), null), dir);
    eq("bytes=10-", server.requests.get(0).header("Range"));
    eq(new String(CONTENT, StandardCharsets.UTF_8), Files.readString(file));
    // A server that ignores the range (200): the part starts over.
    Files.write(dir.resolve("b.bin.part"), "garbage!!!".getBytes(StandardCharsets.UTF_8));
    server.respond(r -> serve(r, true));
    eq(new String(CONTENT, StandardCharsets.UTF_8),
        Files.readString(client().download(KEY, artifact("b.bin", CONTENT.length, sha256Hex(CONTENT), null), dir)));
  }

  @Test
  public void downloadTimesOutBetweenBytesThenResumes() throws Exception {
    Path dir = Files.createTempDirectory("depot-dl");
    Artifact a = artifact("app.tar.gz", CONTENT.length, sha256Hex(CONTENT), null);
    // 12 bytes, then silence for 3 s: past the 800 ms timeout between bytes.
    server.respond(r -> serve(r, false).withHeader(LocalServer.STALL_HEADER, "12:3000"));
    fails(UnreachableException.class, "no byte within 800 ms", () -> builder().timeout(Duration.ofMillis(800)).retries(0).build().download(KEY, a, dir));
    eq(12L, Files.size(dir.resolve("app.tar.gz.part")), "the part keeps what came");
    ok(!Files.exists(dir.resolve("app.tar.gz")), "no file before the check");
    // The next attempt (here a retry of the same call) resumes from the part.
    AtomicInteger calls = new AtomicInteger();
    server.respond(r -> calls.incrementAndGet() == 1 ? serve(r, false).withHeader(LocalServer.STALL_HEADER, "3:3000") : serve(r, false));
    Path file = builder().timeout(Duration.ofMillis(800)).retries(1).build().download(KEY, a, dir);
    eq(new String(CONTENT, StandardCharsets.UTF_8), Files.readString(file));
    eq("bytes=12-", server.requests.get(0).header("Range"));
    eq("bytes=15-", server.requests.get(1).header("Range"));
  }

  @Test
  public void downloadWithAWrongHashDeletesThePart() throws Exception {
    Path dir = Files.createTempDirectory("depot-dl");
    server.respond(r -> serve(r, false));
    fails(UnverifiableException.class, "does not match its sha256",
        () -> client().download(KEY, artifact("app.tar.gz", CONTENT.length, sha256Hex("other".getBytes(StandardCharsets.UTF_8)), null), dir));
    ok(!Files.exists(dir.resolve("app.tar.gz.part")) && !Files.exists(dir.resolve("app.tar.gz")), "nothing left");
    fails(UnverifiableException.class, "does not match its sha512",
        () -> client().download(KEY, artifact("app.tar.gz", CONTENT.length, sha256Hex(CONTENT), sha512Base64("x".getBytes(StandardCharsets.UTF_8))), dir));
    ok(!Files.exists(dir.resolve("app.tar.gz.part")), "nothing left");
  }

  @Test
  public void downloadPastTheSizeStops() throws Exception {
    Path dir = Files.createTempDirectory("depot-dl");
    server.respond(r -> serve(r, false));
    fails(UnverifiableException.class, "larger than its file_size",
        () -> client().download(KEY, artifact("app.tar.gz", 5, sha256Hex(CONTENT), null), dir));
    ok(!Files.exists(dir.resolve("app.tar.gz.part")), "the part is deleted");
  }

  @Test
  public void downloadRefusesHostileNamesBeforeAnyByte() throws Exception {
    Path dir = Files.createTempDirectory("depot-dl");
    server.respond(r -> serve(r, false));
    for (String name : new String[] {"../escape.sh", "sub/x", ".bashrc", "a\0b", "..", "x\\y"}) {
      fails(UnverifiableException.class, "is refused", () -> client().download(KEY, artifact(name, CONTENT.length, sha256Hex(CONTENT), null), dir));
    }
    eq(0, server.requests.size(), "nothing was fetched");
    try (var files = Files.list(dir)) {
      eq(0L, files.count(), "nothing was written");
    }
    ok(!Files.exists(dir.getParent().resolve("escape.sh")), "nothing outside the directory");
  }

  @Test
  public void downloadRefused() throws Exception {
    Path dir = Files.createTempDirectory("depot-dl");
    server.respond(r -> LocalServer.Reply.plain(403, "application/json", "{\"message\":\"This license does not hold this product.\"}"));
    RefusedException e = fails(RefusedException.class, () -> client().download(KEY, artifact("a.bin", 3, "x", null), dir));
    eq("FORBIDDEN", e.code());
    eq("This license does not hold this product.", e.reason());
  }
}
