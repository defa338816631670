package io.github.depothq.depot;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What {@code status()} falls back on: per license key and fingerprint, the last verified validation
 * (as it came: it is verified again when read) and the license file last checked out. In memory, and
 * in {@code stateDir} when one is set, so the grace survives a restart. Files are named by a hash of
 * the key, never the key itself; a failure to write one is not the caller's failure.
 */
final class StateStore {
  private final Path dir;
  private final Map<String, byte[]> memory = new ConcurrentHashMap<>();

  StateStore(Path dir) {
    this.dir = dir;
  }

  void keepAnswer(String key, String fingerprint, RawAnswer answer) {
    put(name(key, fingerprint) + ".answer.json", answer.toJson().getBytes(StandardCharsets.UTF_8));
  }

  RawAnswer answer(String key, String fingerprint) throws UnverifiableException {
    byte[] bytes = get(name(key, fingerprint) + ".answer.json");
    return bytes == null ? null : RawAnswer.fromJson(bytes);
  }

  void keepLicenseFile(String key, String fingerprint, String text) {
    put(name(key, fingerprint) + ".lic", text.getBytes(StandardCharsets.UTF_8));
  }

  String licenseFile(String key, String fingerprint) {
    byte[] bytes = get(name(key, fingerprint) + ".lic");
    return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
  }

  private static String name(String key, String fingerprint) {
    String subject = "depot-client:" + LicenseFiles.normaliseKey(key) + "\n" + (fingerprint == null ? "" : fingerprint);
    return HexFormat.of().formatHex(AnswerVerifier.sha256(subject.getBytes(StandardCharsets.UTF_8))).substring(0, 32);
  }

  private void put(String name, byte[] bytes) {
    memory.put(name, bytes);
    if (dir == null) return;
    try {
      Files.createDirectories(dir);
      Path temp = Files.createTempFile(dir, ".depot-", ".tmp");
      try {
        Files.write(temp, bytes);
        try {
          Files.move(temp, dir.resolve(name), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
          Files.move(temp, dir.resolve(name), StandardCopyOption.REPLACE_EXISTING);
        }
      } finally {
        Files.deleteIfExists(temp);
      }
    } catch (IOException e) {
      // Kept in memory all the same; the next successful check writes it again.
    }
  }

  private byte[] get(String name) {
    byte[] held = memory.get(name);
    if (held != null || dir == null) return held;
    try {
      return Files.readAllBytes(dir.resolve(name));
    } catch (NoSuchFileException e) {
      return null;
    } catch (IOException e) {
      return null;
    }
  }
}
