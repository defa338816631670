package io.github.depothq.depot;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * depot refused the call, and the refusal verified as depot's (a download's refusals are unsigned:
 * depot signs no file). {@link #code()} is depot's code ({@code TOO_MANY_MACHINES},
 * {@code TOO_MANY_ACTIVATIONS}, {@code HEARTBEAT_DEAD}, {@code REVOKED}, {@code EXPIRED},
 * {@code NOT_FOUND}, {@code MACHINE_FILE_VALID}, …) or, for a refusal without one, {@code INVALID}
 * (400, 422, with {@link #errors()}), {@code UNAUTHENTICATED} (401), {@code FORBIDDEN} (403),
 * {@code NOT_FOUND} (404), {@code TOO_MANY_REQUESTS} (429) or {@code HTTP_<status>}.
 */
public final class RefusedException extends DepotException {
  private static final long serialVersionUID = 1L;

  private final String code;
  private final String reason;
  private final int status;
  private final transient Duration retryAfter;
  private final transient Map<String, List<String>> errors;
  private final transient Instant fileExpiresAt;

  public RefusedException(String code, String message, int status, Duration retryAfter, Map<String, List<String>> errors) {
    this(code, message, status, retryAfter, errors, null);
  }

  public RefusedException(String code, String message, int status, Duration retryAfter, Map<String, List<String>> errors,
      Instant fileExpiresAt) {
    super(code + ": " + message);
    this.code = code;
    this.status = status;
    this.retryAfter = retryAfter;
    this.errors = errors == null ? Map.of() : Map.copyOf(errors);
    this.reason = message;
    this.fileExpiresAt = fileExpiresAt;
  }

  /** depot's code for the refusal. */
  public String code() {
    return code;
  }

  /** depot's own message (the exception's message is {@code CODE: message}). */
  public String reason() {
    return reason;
  }

  /** The HTTP status. */
  public int status() {
    return status;
  }

  /** How long depot asks to wait ({@code Retry-After}), e.g. for {@code TOO_MANY_ACTIVATIONS}. */
  public Optional<Duration> retryAfter() {
    return Optional.ofNullable(retryAfter);
  }

  /** For {@code INVALID}: each field's messages, as depot named them (empty otherwise). */
  public Map<String, List<String>> errors() {
    return errors;
  }

  /**
   * For {@code MACHINE_FILE_VALID}: when the license file that holds the machine's seat expires (it
   * cannot be deactivated before; the file works offline until then). Empty otherwise.
   */
  public Optional<Instant> fileExpiresAt() {
    return Optional.ofNullable(fileExpiresAt);
  }
}
