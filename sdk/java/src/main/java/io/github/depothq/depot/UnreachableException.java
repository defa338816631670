package io.github.depothq.depot;

/**
 * No answer: the name did not resolve, the connection was refused or timed out, TLS failed, or depot
 * answered 5xx through every retry. {@link DepotClient#status} answers from what it kept instead.
 */
public final class UnreachableException extends DepotException {
  private static final long serialVersionUID = 1L;

  public UnreachableException(String reason) {
    super(reason);
  }

  public UnreachableException(String reason, Throwable cause) {
    super(reason, cause);
  }
}
