package io.github.depothq.depot;

/**
 * Why an operation gave no result. Three kinds are subclasses, and an app handles them apart:
 * {@link UnverifiableException} (an answer came but is not provably depot's about this request),
 * {@link UnreachableException} (no answer) and {@link RefusedException} (depot said no, verified).
 * A plain {@code DepotException} is a local failure: no machine id for {@code machineFingerprint}, a
 * file {@code download} cannot write.
 */
public class DepotException extends Exception {
  private static final long serialVersionUID = 1L;

  public DepotException(String message) {
    super(message);
  }

  public DepotException(String message, Throwable cause) {
    super(message, cause);
  }
}
