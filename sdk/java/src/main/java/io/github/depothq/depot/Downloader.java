package io.github.depothq.depot;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Streams an artifact into {@code directory/<file_name>.part}, resuming a part already there, checks
 * its sha512 and sha256, and only then renames it to {@code file_name}. The name comes from the
 * artifact, never from a header, and must be a plain file name.
 */
final class Downloader {
  private static final Pattern CONTENT_RANGE = Pattern.compile("^bytes ([0-9]+)-([0-9]+)/([0-9]+|\\*)$");

  private Downloader() {}

  /** Why a name is not a plain file name, or null when it is. */
  static String badName(String name) {
    if (name == null || name.isEmpty()) return "it is empty";
    if (name.indexOf('/') >= 0 || name.indexOf('\\') >= 0) return "it has a path separator";
    if (name.contains("..")) return "it has \"..\"";
    if (name.startsWith(".")) return "it starts with a dot";
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c == 0) return "it has a NUL";
      if (c < 0x20 || c == 0x7f) return "it has a control character";
      if (c == ':') return "it has a colon (a drive or a stream on Windows)";
    }
    if (name.length() > 250) return "it is longer than 250 characters";
    return null;
  }

  static Path download(Transport transport, String key, Artifact artifact, Path directory, DownloadProgress progress)
      throws DepotException {
    String bad = badName(artifact.fileName());
    if (bad != null) throw new UnverifiableException("the artifact's file name \"" + artifact.fileName() + "\" is refused: " + bad);
    if (artifact.sha256() == null && artifact.sha512() == null) throw new UnverifiableException("the artifact carries no sha256 or sha512 to check");
    URI url;
    try {
      url = URI.create(artifact.downloadUrl());
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new UnverifiableException("the artifact's download_url is not a URL");
    }
    if (!"https".equalsIgnoreCase(url.getScheme()) && !"http".equalsIgnoreCase(url.getScheme())) {
      throw new UnverifiableException("the artifact's download_url is not http(s)");
    }
    Path dir = directory.toAbsolutePath().normalize();
    Path target = dir.resolve(artifact.fileName()).normalize();
    Path part = dir.resolve(artifact.fileName() + ".part").normalize();
    if (!dir.equals(target.getParent()) || !dir.equals(part.getParent())) {
      throw new UnverifiableException("the artifact's file name \"" + artifact.fileName() + "\" is refused: it leaves the directory");
    }
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new DepotException("cannot create " + dir + ": " + e.getMessage(), e);
    }

    for (int attempt = 0; ; attempt++) {
      boolean last = attempt >= transport.retries;
      long have = size(part);
      if (artifact.fileSize() >= 0 && have > artifact.fileSize()) {
        delete(part);
        have = 0;
      }
      Outcome outcome;
      if (artifact.fileSize() >= 0 && have == artifact.fileSize() && have > 0) {
        outcome = Outcome.COMPLETE; // a whole part left by an earlier run: only the check is left
      } else {
        try {
          outcome = fetch(transport, key, artifact, url, part, have, progress);
        } catch (IOException e) {
          if (last) throw new UnreachableException("cannot download " + url + ": " + Transport.describe(e), e);
          transport.sleep(transport.backoff(attempt));
          continue;
        } catch (RetryLater e) {
          if (last || e.wait.compareTo(transport.maxRetryWait) > 0) {
            throw new UnreachableException("cannot download " + url + ": HTTP " + e.status);
          }
          transport.sleep(e.wait);
          continue;
        }
      }
      if (outcome == Outcome.START_OVER) {
        delete(part);
        if (last) throw new UnreachableException("cannot download " + url + ": the server did not resume where the part ends");
        continue;
      }
      check(artifact, part);
      try {
        try {
          Files.move(part, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
          Files.move(part, target, StandardCopyOption.REPLACE_EXISTING);
        }
      } catch (IOException e) {
        throw new DepotException("cannot rename " + part + " to " + target + ": " + e.getMessage(), e);
      }
      return target;
    }
  }

  private enum Outcome {
    COMPLETE,
    START_OVER
  }

  /** A 429 or 502–504: try again after {@code wait}. */
  private static final class RetryLater extends Exception {
    private static final long serialVersionUID = 1L;
    final int status;
    final transient Duration wait;

    RetryLater(int status, Duration wait) {
      super("HTTP " + status, null, false, false);
      this.status = status;
      this.wait = wait;
    }
  }

  private static Outcome fetch(Transport transport, String key, Artifact artifact, URI url, Path part, long have,
      DownloadProgress progress) throws IOException, DepotException, RetryLater {
    HttpRequest.Builder builder = HttpRequest.newBuilder(url).GET().header("User-Agent", transport.userAgent)
        .header("Accept-Encoding", "identity");
    if (key != null) builder.header("X-License-Key", key);
    if (have > 0) builder.header("Range", "bytes=" + have + "-");
    long expected = artifact.fileSize();
    // Set on the HTTP client's thread when the body starts, read by this one to judge the idle timeout.
    AtomicReference<FileSink> sink = new AtomicReference<>();
    HttpResponse.BodyHandler<Object> handler = info -> {
      int status = info.statusCode();
      if (status == 200 || (status == 206 && have > 0)) {
        long from = 0;
        if (status == 206) {
          Matcher range = CONTENT_RANGE.matcher(info.headers().firstValue("content-range").orElse(""));
          if (!range.matches() || Long.parseLong(range.group(1)) != have) {
            return HttpResponse.BodySubscribers.replacing(Outcome.START_OVER);
          }
          from = have;
        }
        try {
          sink.set(new FileSink(part, from, expected, progress));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
        return HttpResponse.BodySubscribers.mapping(sink.get(), done -> (Object) done);
      }
      if (status == 416 && have > 0) return HttpResponse.BodySubscribers.replacing(Outcome.START_OVER);
      return HttpResponse.BodySubscribers.mapping(new Transport.LimitedBody(64 << 10), body -> (Object) body);
    };

    CompletableFuture<HttpResponse<Object>> future = transport.http().sendAsync(builder.build(), handler);
    long timeoutNanos = transport.timeout.toNanos();
    long started = System.nanoTime();
    HttpResponse<Object> response;
    try {
      while (true) {
        try {
          response = future.get(100, TimeUnit.MILLISECONDS);
          break;
        } catch (TimeoutException e) {
          FileSink writing = sink.get();
          long lastByte = writing == null ? started : Math.max(started, writing.lastProgress);
          if (System.nanoTime() - lastByte > timeoutNanos) {
            future.cancel(true);
            if (writing != null) writing.abort();
            throw new IOException("no byte within " + transport.timeout.toMillis() + " ms");
          }
        }
      }
    } catch (InterruptedException e) {
      future.cancel(true);
      if (sink.get() != null) sink.get().abort();
      Thread.currentThread().interrupt();
      throw new UnreachableException("interrupted", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof FileSink.TooLong) {
        delete(part);
        throw new UnverifiableException("the download is larger than its file_size (" + expected + " bytes); the part is deleted");
      }
      if (cause instanceof UncheckedIOException io) throw new DepotException("cannot write " + part + ": " + io.getCause().getMessage(), io);
      if (cause instanceof FileSink.WriteFailed io) throw new DepotException("cannot write " + part + ": " + io.getMessage(), io);
      if (cause instanceof IOException io) throw io;
      throw new IOException(cause == null ? "failed" : cause.toString(), cause);
    }
    int status = response.statusCode();
    Object body = response.body();
    if (body instanceof Outcome outcome) return outcome;
    if (status >= 200 && status < 300) throw new UnverifiableException(url + " answered HTTP " + status + " to a download");
    if (status == 429 || status == 502 || status == 503 || status == 504) {
      Duration wait = Transport.retryAfter(response.headers().firstValue("retry-after").orElse(null), transport.clock.instant());
      if (wait == null) wait = status == 429 ? Duration.ofDays(1) : transport.backoff(0);
      throw new RetryLater(status, wait);
    }
    if (status >= 500) throw new UnreachableException(url + " answered HTTP " + status);
    // A refusal: depot signs no file and so none of its refusals here; say what it said.
    String message = "HTTP " + status;
    if (body instanceof byte[] bytes) {
      try {
        Object parsed = Json.parse(bytes);
        if (parsed instanceof java.util.Map<?, ?> map && map.get("message") instanceof String m) message = m;
      } catch (Json.JsonException e) {
        // not JSON: the status says it
      }
    }
    throw new RefusedException(DepotClient.codeFor(status, null), message, status,
        Transport.retryAfter(response.headers().firstValue("retry-after").orElse(null), transport.clock.instant()), null);
  }

  /** The artifact's hashes over the whole part; a mismatch deletes it. */
  private static void check(Artifact artifact, Path part) throws DepotException {
    MessageDigest sha256;
    MessageDigest sha512;
    try {
      sha256 = MessageDigest.getInstance("SHA-256");
      sha512 = MessageDigest.getInstance("SHA-512");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
    long size = 0;
    try (InputStream in = Files.newInputStream(part)) {
      byte[] buffer = new byte[1 << 16];
      for (int n; (n = in.read(buffer)) > 0; ) {
        sha256.update(buffer, 0, n);
        sha512.update(buffer, 0, n);
        size += n;
      }
    } catch (IOException e) {
      throw new DepotException("cannot read " + part + ": " + e.getMessage(), e);
    }
    String why = null;
    if (artifact.fileSize() >= 0 && size != artifact.fileSize()) {
      why = "the downloaded file is " + size + " bytes, not " + artifact.fileSize();
    } else if (artifact.sha512() != null && !MessageDigest.isEqual(sha512.digest(), decodeBase64(artifact.sha512()))) {
      why = "the downloaded file does not match its sha512";
    } else if (artifact.sha256() != null
        && !HexFormat.of().formatHex(sha256.digest()).equals(artifact.sha256().toLowerCase(Locale.ROOT))) {
      why = "the downloaded file does not match its sha256";
    }
    if (why != null) {
      delete(part);
      throw new UnverifiableException(why + "; the part is deleted");
    }
  }

  private static byte[] decodeBase64(String text) {
    try {
      return Base64.getDecoder().decode(text);
    } catch (IllegalArgumentException e) {
      return new byte[0];
    }
  }

  private static long size(Path path) {
    try {
      return Files.exists(path) ? Files.size(path) : 0;
    } catch (IOException e) {
      return 0;
    }
  }

  private static void delete(Path path) {
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      // nothing more to do: it is checked again before any use
    }
  }

  /** Writes the body into the part from {@code from} on, stopping at once past the expected size. */
  static final class FileSink implements HttpResponse.BodySubscriber<Outcome> {
    static final class TooLong extends IOException {
      private static final long serialVersionUID = 1L;
    }

    static final class WriteFailed extends IOException {
      private static final long serialVersionUID = 1L;

      WriteFailed(IOException cause) {
        super(cause.getMessage(), cause);
      }
    }

    private final FileChannel channel;
    private final long expected;
    private final DownloadProgress progress;
    private final CompletableFuture<Outcome> result = new CompletableFuture<>();
    private long written;
    private Flow.Subscription subscription;
    volatile long lastProgress = System.nanoTime();

    FileSink(Path part, long from, long expected, DownloadProgress progress) throws IOException {
      this.channel = FileChannel.open(part, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      if (from == 0) channel.truncate(0);
      channel.position(from);
      this.written = from;
      this.expected = expected;
      this.progress = progress;
    }

    @Override
    public CompletionStage<Outcome> getBody() {
      return result;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
      subscription = s;
      s.request(1);
    }

    @Override
    public void onNext(List<ByteBuffer> items) {
      if (result.isDone()) return;
      try {
        for (ByteBuffer buffer : items) {
          if (expected >= 0 && written + buffer.remaining() > expected) {
            fail(new TooLong());
            return;
          }
          while (buffer.hasRemaining()) written += channel.write(buffer);
        }
      } catch (IOException e) {
        fail(new WriteFailed(e));
        return;
      }
      lastProgress = System.nanoTime();
      if (progress != null) progress.onProgress(written, expected);
      subscription.request(1);
    }

    private void fail(IOException e) {
      subscription.cancel();
      close();
      result.completeExceptionally(e);
    }

    void abort() {
      if (subscription != null) subscription.cancel();
      close();
      result.completeExceptionally(new IOException("aborted"));
    }

    private void close() {
      try {
        channel.close();
      } catch (IOException e) {
        // the part is checked whole before it is used
      }
    }

    @Override
    public void onError(Throwable error) {
      close();
      result.completeExceptionally(error);
    }

    @Override
    public void onComplete() {
      try {
        channel.force(false);
      } catch (IOException e) {
        fail(new WriteFailed(e));
        return;
      }
      close();
      result.complete(Outcome.COMPLETE);
    }
  }
}
