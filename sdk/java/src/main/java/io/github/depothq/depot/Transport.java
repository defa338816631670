package io.github.depothq.depot;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Sends one request with the client's timeout and retry rules: a connection failure, a timeout, 502,
 * 503 or 504, or a 429 whose Retry-After is within maxRetryWait is tried again (up to
 * {@code retries} more times), after Retry-After when the server sends one, else 0.25 s × 2ⁿ with
 * ±20 % jitter. What is left after the retries: no answer or a 5xx is {@link UnreachableException};
 * any other answer is returned for the caller to verify.
 */
final class Transport {
  /** No depot answer is this large; a bigger one is not depot's (and must not fill the memory). */
  static final int MAX_ANSWER_BYTES = 4 << 20;

  private final HttpClient http;
  final Duration timeout;
  final int retries;
  final Duration maxRetryWait;
  final String userAgent;
  final Clock clock;

  Transport(HttpClient http, Duration timeout, int retries, Duration maxRetryWait, String userAgent, Clock clock) {
    this.http = http;
    this.timeout = timeout;
    this.retries = retries;
    this.maxRetryWait = maxRetryWait;
    this.userAgent = userAgent;
    this.clock = clock;
  }

  HttpClient http() {
    return http;
  }

  /** A request that the answer was larger than {@link #MAX_ANSWER_BYTES}. */
  static final class TooLarge extends IOException {
    private static final long serialVersionUID = 1L;

    TooLarge() {
      super("the answer is larger than " + MAX_ANSWER_BYTES + " bytes");
    }
  }

  RawAnswer send(HttpRequest.Builder builder, String server) throws UnreachableException, UnverifiableException {
    HttpRequest request = builder.timeout(timeout).header("User-Agent", userAgent).build();
    for (int attempt = 0; ; attempt++) {
      boolean last = attempt >= retries;
      RawAnswer answer;
      try {
        answer = once(request);
      } catch (IOException e) {
        if (e instanceof TooLarge) throw new UnverifiableException(e.getMessage());
        if (last) throw new UnreachableException("cannot reach " + server + ": " + describe(e), e);
        sleep(backoff(attempt));
        continue;
      }
      int status = answer.status();
      boolean retryable = status == 502 || status == 503 || status == 504 || status == 429;
      if (retryable && !last) {
        Duration wait = retryAfter(answer.retryAfter(), clock.instant());
        if (wait == null) wait = status == 429 ? null : backoff(attempt);
        if (wait != null && wait.compareTo(maxRetryWait) <= 0) {
          sleep(wait);
          continue;
        }
      }
      if (status >= 500) throw new UnreachableException(server + " answered HTTP " + status + (attempt > 0 ? " after " + (attempt + 1) + " attempts" : ""));
      return answer;
    }
  }

  /** One attempt, connect to last byte within the timeout. */
  private RawAnswer once(HttpRequest request) throws IOException, UnreachableException {
    CompletableFuture<HttpResponse<byte[]>> future = http.sendAsync(request, info -> new LimitedBody(MAX_ANSWER_BYTES));
    try {
      HttpResponse<byte[]> response = future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      return RawAnswer.of(response.statusCode(), response.headers(), response.body());
    } catch (TimeoutException e) {
      future.cancel(true);
      throw new HttpTimeoutException("no answer within " + timeout.toMillis() + " ms");
    } catch (InterruptedException e) {
      future.cancel(true);
      Thread.currentThread().interrupt();
      throw new UnreachableException("interrupted", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      // The request's own timeout and ours race: one message for both.
      if (cause instanceof HttpTimeoutException) throw new HttpTimeoutException("no answer within " + timeout.toMillis() + " ms");
      if (cause instanceof IOException io) throw io;
      throw new IOException(cause == null ? "failed" : cause.toString(), cause);
    }
  }

  static String describe(Throwable e) {
    // The JDK's messages are often empty (a refused connection is a ConnectException around a
    // ClosedChannelException, neither with a message): name what happened.
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof ConnectException) {
        return t.getMessage() == null || t.getMessage().isEmpty() ? "connection refused" : "cannot connect: " + t.getMessage();
      }
    }
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root && (root.getMessage() == null || root.getMessage().isEmpty())) {
      root = root.getCause();
    }
    String message = root.getMessage();
    return root.getClass().getSimpleName() + (message == null || message.isEmpty() ? "" : ": " + message);
  }

  /** 0.25 s × 2ⁿ, ±20 %, never more than maxRetryWait. */
  Duration backoff(int attempt) {
    double seconds = 0.25 * Math.pow(2, attempt) * (0.8 + 0.4 * ThreadLocalRandom.current().nextDouble());
    Duration wait = Duration.ofNanos((long) (seconds * 1e9));
    return wait.compareTo(maxRetryWait) > 0 ? maxRetryWait : wait;
  }

  void sleep(Duration wait) throws UnreachableException {
    try {
      Thread.sleep(wait.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UnreachableException("interrupted", e);
    }
  }

  /** Retry-After as seconds or an HTTP date (RFC 9110 §10.2.3); null when absent or unreadable. */
  static Duration retryAfter(String value, Instant now) {
    if (value == null) return null;
    String v = value.trim();
    if (v.matches("[0-9]{1,10}")) return Duration.ofSeconds(Long.parseLong(v));
    try {
      Instant at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
      Duration wait = Duration.between(now, at);
      return wait.isNegative() ? Duration.ZERO : wait;
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  static URI uri(String text) {
    return URI.create(text);
  }

  /** Collects a body up to a limit; past it, the exchange is cancelled with {@link TooLarge}. */
  static final class LimitedBody implements HttpResponse.BodySubscriber<byte[]> {
    private final int max;
    private final CompletableFuture<byte[]> result = new CompletableFuture<>();
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private Flow.Subscription subscription;

    LimitedBody(int max) {
      this.max = max;
    }

    @Override
    public CompletionStage<byte[]> getBody() {
      return result;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
      subscription = s;
      s.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(List<ByteBuffer> items) {
      if (result.isDone()) return;
      for (ByteBuffer buffer : items) {
        if (out.size() + buffer.remaining() > max) {
          subscription.cancel();
          result.completeExceptionally(new TooLarge());
          return;
        }
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        out.write(bytes, 0, bytes.length);
      }
    }

    @Override
    public void onError(Throwable error) {
      result.completeExceptionally(error);
    }

    @Override
    public void onComplete() {
      result.complete(out.toByteArray());
    }
  }
}
