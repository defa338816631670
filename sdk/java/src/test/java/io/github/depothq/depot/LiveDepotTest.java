package io.github.depothq.depot;

import static io.github.depothq.depot.Check.eq;
import static io.github.depothq.depot.Check.fails;
import static io.github.depothq.depot.Check.ok;

import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/**
 * Against a real depot: {@code bun sdk/conformance/start-depot.ts --out FILE} (test.sh starts it)
 * with FILE named by the environment variable {@code DEPOT_FIXTURE}.
 */
public final class LiveDepotTest {
  static Fields fixture;
  static String server;
  static Path jwks;
  static String product;
  static String key;
  static String machineKey;
  static String otherKey;

  static void setUp() throws Exception {
    String file = System.getenv("DEPOT_FIXTURE");
    if (file == null) throw new IllegalStateException("DEPOT_FIXTURE is not set: run sdk/java/test.sh");
    fixture = Fields.of(Json.parse(Files.readAllBytes(Path.of(file))), "the fixture");
    server = fixture.string("server");
    jwks = Path.of(fixture.string("jwks"));
    product = fixture.string("productId");
    key = fixture.string("key");
    // This run's own license with 3 seats: every library's tests may share one depot.
    machineKey = newLicense(3);
    otherKey = fixture.string("otherKey");
  }

  /** A license of the product with {@code maxMachines} seats, made through the license API (x-api-key). */
  static String newLicense(int maxMachines) throws Exception {
    String owner = fixture.string("ownerId");
    Map<String, Object> body = Map.of("ownerId", owner, "creatorId", owner, "productId", product,
        "maxIps", 100L, "maxMachines", (long) maxMachines);
    HttpResponse<byte[]> answer = HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(URI.create(server + "/api/v1/licenses"))
            .header("x-api-key", fixture.string("apiKey"))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(Json.write(body)))
            .build(),
        HttpResponse.BodyHandlers.ofByteArray());
    eq(201, answer.statusCode(), new String(answer.body(), StandardCharsets.UTF_8));
    return Fields.of(Json.parse(answer.body()), "the new license").string("key");
  }

  static DepotClient.Builder builder() {
    return DepotClient.builder().server(server).productId(product).jwks(jwks);
  }

  static DepotClient client() {
    return builder().build();
  }

  // --- validate -------------------------------------------------------------------------------

  @Test
  public void validKey() throws Exception {
    Validation v = client().validate(key);
    ok(v.valid(), "valid");
    eq("VALID", v.code());
    eq(key, v.license().key());
    eq(product, v.license().productId());
    eq(null, v.license().maxMachines());
    ok(v.checkedAt() != null, "depot's time");
  }

  @Test
  public void unknownKey() throws Exception {
    Validation v = client().validate("NOTAR-EALKE-Y0000-00000-00000");
    ok(!v.valid(), "not valid");
    eq("NOT_FOUND", v.code());
    eq(null, v.license());
  }

  @Test
  public void anotherProductsKey() throws Exception {
    Validation v = client().validate(otherKey);
    ok(!v.valid(), "not valid");
    eq("PRODUCT_MISMATCH", v.code());
  }

  @Test
  public void machineLicenseWithoutFingerprint() throws Exception {
    Validation v = client().validate(machineKey);
    eq("FINGERPRINT_REQUIRED", v.code());
    eq(3, v.machines().max());
  }

  @Test
  public void malformedKeyIsARefusal() {
    RefusedException e = fails(RefusedException.class, () -> client().validate("K".repeat(201)));
    eq("INVALID", e.code());
    eq(422, e.status());
    ok(e.errors().containsKey("key"), "names the field: " + e.errors());
  }

  // --- machines -------------------------------------------------------------------------------

  @Test
  public void activateThenValidateThenDeactivate() throws Exception {
    DepotClient c = client();
    Activation first = c.activate(machineKey, "fp-java-live-1", new MachineInfo("Ada's laptop", "linux-x64", "ada"));
    ok(first.created(), "201 the first time");
    eq("Ada's laptop", first.machine().name());
    eq(3, first.license().maxMachines());
    Activation again = c.activate(machineKey, "fp-java-live-1");
    ok(!again.created(), "200 the second time");
    eq(first.machine().id(), again.machine().id());

    Validation v = c.validate(machineKey, "fp-java-live-1");
    ok(v.valid(), "valid with its fingerprint");
    eq(first.machine().id(), v.machine().id());
    eq("NOT_ACTIVATED", c.validate(machineKey, "fp-java-never").code());

    c.deactivate(machineKey, first.machine().id());
    eq("NOT_ACTIVATED", c.validate(machineKey, "fp-java-live-1").code());
    RefusedException gone = fails(RefusedException.class, () -> c.deactivate(machineKey, first.machine().id()));
    eq("NOT_FOUND", gone.code());
    eq(404, gone.status());
  }

  /** Needs the server's heartbeat to echo ?nonce= (on its way in another branch). */
  @Test
  public void heartbeat() throws Exception {
    DepotClient c = client();
    Activation a = c.activate(machineKey, "fp-java-live-beat");
    try {
      Machine m = c.heartbeat(machineKey, a.machine().id());
      ok(m.alive(), "alive");
      eq(a.machine().id(), m.id());
    } finally {
      c.deactivate(machineKey, a.machine().id());
    }
    RefusedException e = fails(RefusedException.class, () -> c.heartbeat(machineKey, a.machine().id()));
    eq("NOT_FOUND", e.code());
  }

  @Test
  public void activationOfAnotherProductsKey() {
    // depot activates any license by its key; the answer, about this key, says it is another product's.
    eq("PRODUCT_MISMATCH", fails(RefusedException.class, () -> client().activate(otherKey, "fp-java-other")).code());
  }

  // --- license files --------------------------------------------------------------------------

  @Test
  public void checkoutAndVerify() throws Exception {
    DepotClient c = client();
    Validation v = c.checkout(key, null, Duration.ofDays(2));
    ok(v.valid(), "valid");
    ok(v.licenseFile() != null && v.licenseFile().startsWith("-----BEGIN DEPOT LICENSE FILE-----"), "a file");
    LicenseFile f = c.verifyLicenseFile(v.licenseFile(), LicenseFileCheck.forKey(key));
    eq(key, f.key());
    eq(server, f.issuer());
    eq(product, f.productId());
    eq(v.licenseFileExpiresAt(), f.expiresAt());
    ok(Duration.between(Instant.now(), f.expiresAt()).toHours() >= 47, "the ttl asked");

    // Tampered: one character of the payload.
    fails(UnverifiableException.class, "signature verification failed", () -> c.verifyLicenseFile(TestSigner.tamperPayload(v.licenseFile())));
    // Another fingerprint: the file is bound to none.
    fails(UnverifiableException.class, "not bound to a machine",
        () -> c.verifyLicenseFile(v.licenseFile(), LicenseFileCheck.NONE.withFingerprint("fp-x")));
    // Another key.
    fails(UnverifiableException.class, "another license key", () -> c.verifyLicenseFile(v.licenseFile(), LicenseFileCheck.forKey(otherKey)));
    // Expired (now past exp), and the grace that covers it.
    Instant after = f.expiresAt().plusSeconds(3600);
    fails(UnverifiableException.class, "the file expired at", () -> c.verifyLicenseFile(v.licenseFile(), LicenseFileCheck.NONE.withNow(after)));
    eq(key, c.verifyLicenseFile(v.licenseFile(), LicenseFileCheck.NONE.withNow(after).withGrace(Duration.ofHours(2))).key());
    // Under another address than the one depot's APP_URL names.
    DepotClient elsewhere = DepotClient.builder().server(server.replace("127.0.0.1", "localhost")).productId(product).jwks(jwks).build();
    fails(UnverifiableException.class, "the file was issued by \"" + server + "\", expected \"" + server.replace("127.0.0.1", "localhost") + "\"",
        () -> elsewhere.verifyLicenseFile(v.licenseFile()));
  }

  @Test
  public void machineBoundCheckout() throws Exception {
    DepotClient c = client();
    String license = newLicense(1);
    Activation a = c.activate(license, "fp-java-live-file");
    Validation v = c.checkout(license, "fp-java-live-file", null);
    LicenseFile f = c.verifyLicenseFile(v.licenseFile(), LicenseFileCheck.forKey(license).withFingerprint("fp-java-live-file"));
    eq("fp-java-live-file", f.fingerprint());
    eq(a.machine().id(), f.machineId());
    fails(UnverifiableException.class, "the file is bound to another machine",
        () -> c.verifyLicenseFile(v.licenseFile(), LicenseFileCheck.forKey(license).withFingerprint("fp-other")));
    // The file works offline until it expires: the seat stays taken until then.
    RefusedException held = fails(RefusedException.class, () -> c.deactivate(license, a.machine().id()));
    eq("MACHINE_FILE_VALID", held.code());
    eq(409, held.status());
    eq(java.util.Optional.of(f.expiresAt()), held.fileExpiresAt());
    eq(java.util.Optional.of(v.licenseFileExpiresAt()), held.fileExpiresAt());
  }

  @Test
  public void offlineActivation() throws Exception {
    DepotClient c = client();
    String machineKey = newLicense(1);
    String licenseId = c.validate(machineKey, "fp-java-air").license().id();
    String request = DepotClient.offlineActivationRequest(machineKey, "fp-java-air", new MachineInfo("Vault", "linux-x64", "vault"));
    // What the customer does in the dashboard: the owner's route, with the owner's (the admin's) token.
    HttpResponse<byte[]> answer = HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(URI.create(server + "/api/licenses/" + licenseId + "/machines/offline"))
            .header("Authorization", "Bearer " + fixture.string("token"))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(Json.write(Map.of("request", request))))
            .build(),
        HttpResponse.BodyHandlers.ofByteArray());
    eq(201, answer.statusCode(), new String(answer.body(), StandardCharsets.UTF_8));
    Fields data = Fields.of(Json.parse(answer.body()), "the answer").object("data");
    eq("Vault", data.object("machine").string("name"));
    String file = data.string("license_file");
    LicenseFile f = c.verifyLicenseFile(file, LicenseFileCheck.forKey(machineKey).withFingerprint("fp-java-air"));
    eq("fp-java-air", f.fingerprint());
    fails(UnverifiableException.class, "bound to another machine",
        () -> c.verifyLicenseFile(file, LicenseFileCheck.forKey(machineKey).withFingerprint("fp-java-other")));
  }

  // --- updates --------------------------------------------------------------------------------

  @Test
  public void upgradeCheck() throws Exception {
    DepotClient c = client();
    Upgrade u = c.checkForUpdate(key, "1.0.0", UpdateTarget.of("linux", "x86_64"));
    ok(u.upgrade(), "an upgrade");
    eq("1.1.0", u.version());
    eq(1, u.artifacts().size());
    eq("desk-clock-1.1.0-linux-x86_64.tar.gz", u.artifacts().get(0).fileName());
    Upgrade none = c.checkForUpdate(key, "1.1.0", UpdateTarget.of("linux", "x86_64"));
    ok(!none.upgrade(), "nothing newer");
    eq(null, none.version());
    eq(0, none.artifacts().size());
    // Another product's key: depot's signed refusal.
    RefusedException e = fails(RefusedException.class, () -> c.checkForUpdate(otherKey, "1.0.0"));
    eq(403, e.status());
    eq("FORBIDDEN", e.code());
    eq("INVALID", fails(RefusedException.class, () -> c.checkForUpdate(key, "not-semver")).code());
  }

  @Test
  public void download() throws Exception {
    DepotClient c = client();
    Artifact artifact = c.checkForUpdate(key, "1.0.0", UpdateTarget.of("linux", "x86_64")).artifacts().get(0);
    String expected = "desk-clock-1.1.0-linux-x86_64.tar.gz bytes\n";
    Path dir = Files.createTempDirectory("depot-live-dl");
    Path file = c.download(key, artifact, dir);
    eq(expected, Files.readString(file));
    eq("desk-clock-1.1.0-linux-x86_64.tar.gz", file.getFileName().toString());

    // Resumed from a partial .part.
    Path again = Files.createTempDirectory("depot-live-dl");
    Files.writeString(again.resolve(artifact.fileName() + ".part"), expected.substring(0, 10));
    eq(expected, Files.readString(c.download(key, artifact, again)));

    // A wrong hash: refused, the part deleted.
    Artifact wrong = new Artifact(artifact.id(), artifact.versionId(), artifact.platform(), artifact.arch(), artifact.fileName(),
        artifact.fileSize(), "0".repeat(64), null, artifact.contentType(), null, artifact.downloadUrl());
    Path third = Files.createTempDirectory("depot-live-dl");
    fails(UnverifiableException.class, "does not match its sha256", () -> c.download(key, wrong, third));
    ok(!Files.exists(third.resolve(artifact.fileName() + ".part")) && !Files.exists(third.resolve(artifact.fileName())), "nothing left");

    // A hostile file name.
    Artifact hostile = new Artifact(artifact.id(), artifact.versionId(), artifact.platform(), artifact.arch(), "../../evil.sh",
        artifact.fileSize(), artifact.sha256(), artifact.sha512(), artifact.contentType(), null, artifact.downloadUrl());
    fails(UnverifiableException.class, "is refused", () -> c.download(key, hostile, third));
    try (var files = Files.list(third)) {
      eq(0L, files.count(), "nothing written");
    }

    // Another product's key: depot refuses the file.
    fails(RefusedException.class, () -> c.download(otherKey, artifact, third));
  }

  // --- status() -------------------------------------------------------------------------------

  @Test
  public void statusOnlineCacheLicenseFileNone() throws Exception {
    Path state = Files.createTempDirectory("depot-live-state");
    DepotClient online = builder().stateDir(state).build();
    Status s = online.status(key);
    eq(Status.Source.ONLINE, s.source());
    ok(s.valid(), "valid online");
    online.checkout(key);

    // The same server URL, but nothing gets through (a proxy nobody listens on): unreachable.
    int dead;
    try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
      dead = socket.getLocalPort();
    }
    HttpClient cut = HttpClient.newBuilder().proxy(ProxySelector.of(new InetSocketAddress("127.0.0.1", dead))).build();
    LocalServerTest.MutableClock clock = new LocalServerTest.MutableClock(Instant.now());
    DepotClient offline = builder().stateDir(state).httpClient(cut).clock(clock).retries(0).build();
    Status cached = offline.status(key);
    eq(Status.Source.CACHE, cached.source());
    ok(cached.valid(), "valid from the cache");
    ok(cached.error() instanceof UnreachableException, "unreachable: " + cached.error());

    clock.now = Instant.now().plus(Duration.ofDays(8));
    Status fromFile = offline.status(key);
    eq(Status.Source.LICENSE_FILE, fromFile.source());
    ok(fromFile.valid(), "valid from the license file");
    eq(key, fromFile.licenseFile().key());

    clock.now = Instant.now().plus(Duration.ofDays(31));
    Status none = offline.status(key);
    eq(Status.Source.NONE, none.source());
    ok(!none.valid(), "nothing left");
    eq("UNREACHABLE", none.code());
  }
}
