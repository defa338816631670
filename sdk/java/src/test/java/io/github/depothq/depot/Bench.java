package io.github.depothq.depot;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.Map;

/**
 * The CPU cost of one verified validate, the network left out: one real answer of depot's validate
 * is recorded, then verified N times in a loop exactly as {@code validate()} verifies what it
 * receives (digest, signature, freshness, nonce, JSON, about this key and product, the typed
 * result). After a warm-up for the JIT, prints the median of five rounds in µs of this thread's
 * CPU time per verification (and the wall time, which on a busy machine is more).
 *
 * <pre>java -cp … io.github.depothq.depot.Bench FIXTURE.json [N]</pre>
 */
public final class Bench {
  public static void main(String[] args) throws Exception {
    Fields fixture = Fields.of(Json.parse(Files.readAllBytes(Path.of(args[0]))), "the fixture");
    int n = args.length > 1 ? Integer.parseInt(args[1]) : 10_000;
    String server = fixture.string("server");
    String key = fixture.string("key");
    // The clock stands still at the time of recording: the freshness check runs every time (it is
    // part of the cost) and passes however long the loop takes on a busy machine.
    Clock recordedAt = Clock.fixed(Instant.now(), ZoneOffset.UTC);
    DepotClient client = DepotClient.builder().server(server).productId(fixture.string("productId"))
        .jwks(Path.of(fixture.string("jwks"))).clock(recordedAt).build();

    // One real answer, recorded as it came.
    String nonce = DepotClient.nonce();
    HttpResponse<byte[]> response = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build().send(
        HttpRequest.newBuilder(URI.create(server + "/api/v1/licenses/validate"))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(Json.write(Map.of("key", key, "productId", fixture.string("productId"), "nonce", nonce))))
            .build(),
        HttpResponse.BodyHandlers.ofByteArray());
    RawAnswer raw = RawAnswer.of(response.statusCode(), response.headers(), response.body());
    if (!client.verifyValidation(raw, nonce, key, null).validation().valid()) throw new IllegalStateException("not VALID");

    for (int i = 0; i < n; i++) client.verifyValidation(raw, nonce, key, null); // JIT warm-up
    // CPU time of this thread (what a verification costs, whatever else the machine is doing), and
    // wall time beside it; and the Ed25519 check alone, which is most of it.
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    double[] cpu = new double[5];
    double[] wall = new double[5];
    for (int r = 0; r < cpu.length; r++) {
      long cpuStart = threads.getCurrentThreadCpuTime();
      long started = System.nanoTime();
      for (int i = 0; i < n; i++) client.verifyValidation(raw, nonce, key, null);
      wall[r] = (System.nanoTime() - started) / 1e3 / n;
      cpu[r] = (threads.getCurrentThreadCpuTime() - cpuStart) / 1e3 / n;
    }
    byte[] data = new byte[300];
    java.security.KeyPair pair = java.security.KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
    java.security.Signature signer = java.security.Signature.getInstance("Ed25519");
    signer.initSign(pair.getPrivate());
    signer.update(data);
    byte[] signature = signer.sign();
    for (int i = 0; i < n; i++) KeySet.verifies(pair.getPublic(), data, signature);
    long edStart = threads.getCurrentThreadCpuTime();
    for (int i = 0; i < n; i++) KeySet.verifies(pair.getPublic(), data, signature);
    double ed = (threads.getCurrentThreadCpuTime() - edStart) / 1e3 / n;
    Arrays.sort(cpu);
    Arrays.sort(wall);
    System.out.printf("java: %.0f µs CPU per verified validate (median of 5 rounds of %d after %d to warm up the JIT;"
        + " a %d-byte answer; %s %s)%n", cpu[2], n, n, raw.body().length, System.getProperty("java.vm.name"), System.getProperty("java.version"));
    System.out.printf("      of which the JDK's Ed25519 verify alone: %.0f µs CPU; wall time per verification: %.0f µs (median)%n", ed, wall[2]);
  }
}
