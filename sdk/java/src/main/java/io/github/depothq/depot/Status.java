package io.github.depothq.depot;

import java.time.Instant;

/**
 * What {@link DepotClient#status} concluded, and from where.
 *
 * @param code the validation's code, or {@code UNREACHABLE} / {@code UNVERIFIABLE} when nothing
 *     kept could stand in (source NONE), or a refusal's code
 * @param checkedAt when depot last said so: the answer's signature time, or the file's {@code iat};
 *     null when nothing was ever verified
 * @param validation the validation it rests on (ONLINE, CACHE), else null
 * @param licenseFile the license file it rests on (LICENSE_FILE), else null
 * @param error why it did not come online (null when it did)
 */
public record Status(
    boolean valid,
    String code,
    Source source,
    Instant checkedAt,
    Validation validation,
    LicenseFile licenseFile,
    DepotException error) {

  /** Where a status came from. */
  public enum Source {
    /** depot answered now, and the answer verified. */
    ONLINE("online"),
    /** depot could not be reached (or its answer not verified): the last verified answer, within offlineGrace. */
    CACHE("cache"),
    /** the license file last checked out, verified now. */
    LICENSE_FILE("licenseFile"),
    /** nothing kept could stand in: not valid. */
    NONE("none");

    private final String wireName;

    Source(String wireName) {
      this.wireName = wireName;
    }

    /** The name the other depot libraries use: online, cache, licenseFile, none. */
    public String wireName() {
      return wireName;
    }
  }
}
