package io.github.depothq.depot;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A stable, privacy-preserving machine fingerprint: SHA-256 of {@code depot:<productId>:<machine id>}
 * in lower-case hex, where the machine id is the operating system's own (Windows MachineGuid, macOS
 * IOPlatformUUID, Linux /etc/machine-id then /var/lib/dbus/machine-id).
 */
final class MachineFingerprint {
  static final Path[] LINUX_IDS = {Path.of("/etc/machine-id"), Path.of("/var/lib/dbus/machine-id")};
  private static final Pattern MACHINE_GUID = Pattern.compile("MachineGuid\\s+REG_SZ\\s+(\\S+)");
  private static final Pattern PLATFORM_UUID = Pattern.compile("\"IOPlatformUUID\"\\s*=\\s*\"([^\"]+)\"");

  private MachineFingerprint() {}

  static String of(String productId, String machineId) {
    if (productId == null || productId.isEmpty()) throw new IllegalArgumentException("productId is required");
    String id = machineId.strip();
    if (id.isEmpty()) throw new IllegalArgumentException("the machine id is empty");
    byte[] hash = AnswerVerifier.sha256(("depot:" + productId + ":" + id).getBytes(StandardCharsets.UTF_8));
    return HexFormat.of().formatHex(hash);
  }

  /** This machine's id, as the operating system keeps it. */
  static String systemMachineId() throws DepotException {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    if (os.startsWith("windows")) {
      String out = run("reg", "query", "HKLM\\SOFTWARE\\Microsoft\\Cryptography", "/v", "MachineGuid");
      Matcher m = out == null ? null : MACHINE_GUID.matcher(out);
      if (m != null && m.find()) return m.group(1);
      throw new DepotException("no machine id: HKLM\\SOFTWARE\\Microsoft\\Cryptography has no MachineGuid (pass machineId)");
    }
    if (os.startsWith("mac")) {
      String out = run("ioreg", "-rd1", "-c", "IOPlatformExpertDevice");
      Matcher m = out == null ? null : PLATFORM_UUID.matcher(out);
      if (m != null && m.find()) return m.group(1);
      throw new DepotException("no machine id: ioreg shows no IOPlatformUUID (pass machineId)");
    }
    String id = firstId(LINUX_IDS);
    if (id != null) return id;
    throw new DepotException("no machine id: neither /etc/machine-id nor /var/lib/dbus/machine-id holds one (pass machineId)");
  }

  /** The first of these files that holds something other than whitespace, trimmed. */
  static String firstId(Path... candidates) {
    for (Path path : candidates) {
      try {
        String id = Files.readString(path, StandardCharsets.US_ASCII).strip();
        if (!id.isEmpty()) return id;
      } catch (IOException | RuntimeException e) {
        // not there, not readable: the next one
      }
    }
    return null;
  }

  private static String run(String... command) {
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      byte[] out = process.getInputStream().readAllBytes();
      if (!process.waitFor(10, TimeUnit.SECONDS)) process.destroyForcibly();
      return new String(out, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }
}
