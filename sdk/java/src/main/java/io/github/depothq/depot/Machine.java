package io.github.depothq.depot;

import java.time.Instant;

/**
 * A machine activated on a license.
 *
 * @param alive false: it missed its heartbeats and holds no seat (activate it again)
 */
public record Machine(
    String id,
    String licenseId,
    String fingerprint,
    String name,
    String platform,
    String hostname,
    Instant createdAt,
    Instant lastHeartbeatAt,
    boolean alive) {

  static Machine from(Fields f) throws UnverifiableException {
    return f == null
        ? null
        : new Machine(
            f.string("id"),
            f.optString("licenseId"),
            f.string("fingerprint"),
            f.optString("name"),
            f.optString("platform"),
            f.optString("hostname"),
            f.optInstant("createdAt"),
            f.optInstant("lastHeartbeatAt"),
            f.bool("alive"));
  }
}
