package io.github.depothq.depot;

import static io.github.depothq.depot.Check.eq;
import static io.github.depothq.depot.Check.fails;
import static io.github.depothq.depot.Check.ok;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;

/** What needs no server: the fingerprint, the offline request, Retry-After, names, configuration. */
public final class UnitTest {
  @Test
  public void fingerprintTestVector() {
    eq("bee1603142b8ed5996fe832fa4faa1d37b91f33a63af6e45c18f9fbee1adaf78",
        DepotClient.machineFingerprint("1", "0123456789abcdef0123456789abcdef"));
    // The id is trimmed (a machine-id file ends with a newline).
    eq(DepotClient.machineFingerprint("1", "0123456789abcdef0123456789abcdef"),
        DepotClient.machineFingerprint("1", " 0123456789abcdef0123456789abcdef\n"));
    ok(!DepotClient.machineFingerprint("2", "0123456789abcdef0123456789abcdef")
        .equals(DepotClient.machineFingerprint("1", "0123456789abcdef0123456789abcdef")), "another product, another value");
  }

  @Test
  public void fingerprintOfThisMachine() throws Exception {
    String fp = DepotClient.machineFingerprint("1");
    ok(fp.matches("[0-9a-f]{64}"), "64 hex characters: " + fp);
    eq(fp, DepotClient.machineFingerprint("1"), "stable");
  }

  @Test
  public void linuxMachineIdFallsBack() throws Exception {
    Path dir = Files.createTempDirectory("depot-ids");
    Path empty = Files.writeString(dir.resolve("machine-id"), "\n");
    Path dbus = Files.writeString(dir.resolve("dbus-machine-id"), "abc123\n");
    eq("abc123", MachineFingerprint.firstId(dir.resolve("missing"), empty, dbus));
    eq(null, MachineFingerprint.firstId(dir.resolve("missing"), empty));
  }

  @Test
  public void offlineActivationRequest() throws Exception {
    String request = DepotClient.offlineActivationRequest("KEY-1", "fp-1", new MachineInfo("Vault", null, "vault"));
    ok(!request.contains("\n"), "one line");
    String json = new String(Base64.getDecoder().decode(request), StandardCharsets.UTF_8);
    eq("{\"v\":1,\"key\":\"KEY-1\",\"fingerprint\":\"fp-1\",\"name\":\"Vault\",\"hostname\":\"vault\"}", json);
    String bare = new String(Base64.getDecoder().decode(DepotClient.offlineActivationRequest("K", "f", null)), StandardCharsets.UTF_8);
    eq("{\"v\":1,\"key\":\"K\",\"fingerprint\":\"f\"}", bare);
  }

  @Test
  public void retryAfter() {
    Instant now = Instant.parse("2026-01-01T00:00:00Z");
    eq(Duration.ofSeconds(120), Transport.retryAfter("120", now));
    eq(Duration.ofSeconds(30), Transport.retryAfter("Thu, 01 Jan 2026 00:00:30 GMT", now));
    eq(Duration.ZERO, Transport.retryAfter("Wed, 31 Dec 2025 23:00:00 GMT", now));
    eq(null, Transport.retryAfter("soon", now));
    eq(null, Transport.retryAfter(null, now));
  }

  @Test
  public void backoffGrowsWithJitterWithinTheCap() {
    Transport t = new Transport(null, Duration.ofSeconds(1), 5, Duration.ofSeconds(1), "ua", java.time.Clock.systemUTC());
    for (int i = 0; i < 50; i++) {
      long first = t.backoff(0).toMillis();
      long third = t.backoff(2).toMillis();
      ok(first >= 200 && first <= 300, "0.25 s ± 20 %: " + first);
      ok(third >= 800 && third <= 1000, "1 s ± 20 %, capped at maxRetryWait: " + third);
    }
  }

  @Test
  public void hostileFileNames() {
    for (String name : new String[] {"", "../evil", "a/b", "a\\b", "..", ".hidden", "a\0b", "C:evil", "x\ny"}) {
      ok(Downloader.badName(name) != null, "refused: " + name);
    }
    for (String name : new String[] {"desk-clock-1.1.0-linux-x86_64.tar.gz", "Desk Clock Setup 1.1.0.exe", "a.b.c"}) {
      eq(null, Downloader.badName(name), name);
    }
  }

  @Test
  public void nonces() {
    String a = DepotClient.nonce();
    ok(a.matches("[A-Za-z0-9_-]{22}"), "16 bytes base64url: " + a);
    ok(!a.equals(DepotClient.nonce()), "fresh");
  }

  @Test
  public void configuration() {
    String jwks = new TestSigner().jwks();
    fails(IllegalStateException.class, "server", () -> DepotClient.builder().productId("1").jwks(jwks).build());
    fails(IllegalStateException.class, "server", () -> DepotClient.builder().server("ftp://x").productId("1").jwks(jwks).build());
    fails(IllegalStateException.class, "productId", () -> DepotClient.builder().server("http://x").jwks(jwks).build());
    fails(IllegalStateException.class, "productId", () -> DepotClient.builder().server("http://x").productId("one").jwks(jwks).build());
    fails(IllegalStateException.class, "jwks", () -> DepotClient.builder().server("http://x").productId("1").build());
    fails(IllegalStateException.class, "no Ed25519 signing key",
        () -> DepotClient.builder().server("http://x").productId("1").jwks("{\"keys\":[]}").build());
    fails(IllegalStateException.class, "not JSON", () -> DepotClient.builder().server("http://x").productId("1").jwks("{").build());
    fails(IllegalStateException.class, "cannot read",
        () -> DepotClient.builder().server("http://x").productId("1").jwks(Path.of("/nonexistent/jwks.json")).build());
    DepotClient client = DepotClient.builder().server("https://depot.example.com//").productId("1").jwks(jwks).build();
    eq("https://depot.example.com", client.server());
    eq(1, client.trustedKeyCount());
  }

  @Test
  public void jwksSkipsWhatIsNotAnEd25519SigningKey() throws Exception {
    TestSigner signer = new TestSigner();
    Map<?, ?> jwk = (Map<?, ?>) ((java.util.List<?>) ((Map<?, ?>) Json.parse(signer.jwks())).get("keys")).get(0);
    String x = (String) jwk.get("x");
    String set = "{\"keys\":[{\"kty\":\"RSA\",\"kid\":\"r\",\"n\":\"AQAB\",\"e\":\"AQAB\"},"
        + "{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"kid\":\"enc\",\"use\":\"enc\",\"x\":\"" + x + "\"},"
        + "{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"kid\":\"ok\",\"x\":\"" + x + "\"}]}";
    eq(java.util.Set.of("ok"), KeySet.parse(set.getBytes(StandardCharsets.UTF_8)).keySet());
  }
}
