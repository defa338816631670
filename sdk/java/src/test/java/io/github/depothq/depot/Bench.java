package io.github.depothq.depot;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;

/**
 * The CPU cost of one verified validate, the network left out: one real answer of depot's validate
 * is recorded, then verified N times in a loop exactly as {@code validate()} verifies what it
 * receives (digest, signature, freshness, nonce, JSON, about this key and product, the typed
 * result). After a warm-up for the JIT, prints the median of five rounds in µs per verification.
 *
 * <pre>java -cp … io.github.depothq.depot.Bench FIXTURE.json [N]</pre>
 */
public final class Bench {
  public static void main(String[] args) throws Exception {
    Fields fixture = Fields.of(Json.parse(Files.readAllBytes(Path.of(args[0]))), "the fixture");
    int n = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
    String server = fixture.string("server");
    String key = fixture.string("key");
    DepotClient client = DepotClient.builder().server(server).productId(fixture.string("productId"))
        .jwks(Path.of(fixture.string("jwks"))).build();

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
    double[] rounds = new double[5];
    for (int r = 0; r < rounds.length; r++) {
      long started = System.nanoTime();
      for (int i = 0; i < n; i++) client.verifyValidation(raw, nonce, key, null);
      rounds[r] = (System.nanoTime() - started) / 1e3 / n;
    }
    Arrays.sort(rounds);
    System.out.printf("java: %.1f µs per verified validate (median of 5 rounds of %d, after %d warm-up; a %d-byte answer; %s %s)%n",
        rounds[2], n, n, raw.body().length, System.getProperty("java.vm.name"), System.getProperty("java.version"));
    System.out.printf("      rounds: %s µs%n", Arrays.toString(Arrays.stream(rounds).map(d -> Math.round(d * 10) / 10.0).toArray()));
  }
}
