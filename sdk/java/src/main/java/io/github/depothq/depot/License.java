package io.github.depothq.depot;

import java.time.Instant;

/**
 * A license as depot's license API shows it. The machine settings are null (and {@code floating}
 * false) on a license that does not use machines.
 *
 * @param expires null: it never expires
 * @param maxIps null: no address limit
 * @param maxMachines null: machines are not counted
 */
public record License(
    String id,
    String key,
    String productId,
    String userId,
    String creatorId,
    Instant expires,
    Integer maxIps,
    Integer maxMachines,
    boolean floating,
    Integer heartbeatSeconds,
    Instant createdAt,
    Instant updatedAt) {

  static License from(Fields f) throws UnverifiableException {
    return new License(
        f.string("id"),
        f.string("key"),
        f.id("productId"),
        f.id("userId"),
        f.id("creatorId"),
        f.optInstant("expires"),
        f.optInt("maxIps"),
        f.optInt("maxMachines"),
        f.optBool("floating", false),
        f.optInt("heartbeatSeconds"),
        f.optInstant("createdAt"),
        f.optInstant("updatedAt"));
  }
}
