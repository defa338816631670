package io.github.depothq.depot;

/**
 * What the upgrade check asks about; null fields are left out (depot takes {@code any},
 * {@code any}, {@code stable}).
 *
 * @param platform {@code windows}, {@code darwin} or {@code linux}
 * @param arch {@code x86_64}, {@code aarch64}, {@code i686}, {@code armv7} or {@code universal}
 * @param channel {@code stable}, {@code rc}, {@code beta}, {@code alpha} or {@code dev}
 * @param stagingId who the client is for a staged rollout (sent as {@code x-user-staging-id}); else
 *     depot decides by the license key
 */
public record UpdateTarget(String platform, String arch, String channel, String stagingId) {
  /** Any platform and arch, the stable channel. */
  public static final UpdateTarget ANY = new UpdateTarget(null, null, null, null);

  public static UpdateTarget of(String platform, String arch) {
    return new UpdateTarget(platform, arch, null, null);
  }

  public UpdateTarget withChannel(String channel) {
    return new UpdateTarget(platform, arch, channel, stagingId);
  }

  public UpdateTarget withStagingId(String stagingId) {
    return new UpdateTarget(platform, arch, channel, stagingId);
  }
}
