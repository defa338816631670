package io.github.depothq.depot;

/**
 * What an activation tells depot about the machine, each optional (null: left out).
 *
 * @param name a name the customer recognises ("Ada's laptop")
 * @param platform e.g. {@code windows-x64}, {@code macos-arm64}, {@code linux-x64}
 * @param hostname the machine's host name
 */
public record MachineInfo(String name, String platform, String hostname) {
  /** Nothing but the fingerprint. */
  public static final MachineInfo NONE = new MachineInfo(null, null, null);

  public static MachineInfo named(String name) {
    return new MachineInfo(name, null, null);
  }
}
