package io.github.depothq.depot;

/**
 * An answer came, but it is not provably depot's answer to this request: unsigned, a bad digest, a
 * key that is not pinned, a signature that does not verify, too old, another nonce, about another
 * license, product, machine or update target, a body that is not JSON, a download whose hash does
 * not match. Never trust it; the message says which check failed.
 */
public final class UnverifiableException extends DepotException {
  private static final long serialVersionUID = 1L;

  public UnverifiableException(String reason) {
    super(reason);
  }

  public UnverifiableException(String reason, Throwable cause) {
    super(reason, cause);
  }
}
