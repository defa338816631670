package io.github.depothq.depot;

import java.time.Instant;
import java.util.List;

/**
 * A verified answer of the upgrade check. When {@code upgrade} is false there is nothing newer: the
 * version fields are null and {@code artifacts} is empty.
 *
 * @param current the version the app runs, as asked
 * @param productId the product, platform, arch and channel the answer is for (checked: the ones asked)
 * @param version the version to upgrade to ({@code 1.1.0}), or null
 * @param artifacts its files for the platform and arch asked
 */
public record Upgrade(
    boolean upgrade,
    String current,
    String productId,
    String platform,
    String arch,
    String channel,
    String version,
    Long versionId,
    String title,
    String changelog,
    boolean critical,
    Instant publishedAt,
    List<Artifact> artifacts) {

  static Upgrade from(Fields f) throws UnverifiableException {
    Fields v = f.optObject("version");
    boolean upgrade = f.bool("upgrade");
    if (v == null) {
      return new Upgrade(upgrade, f.string("current"), f.id("product_id"), f.string("platform"), f.string("arch"),
          f.string("channel"), null, null, null, null, false, null, List.of());
    }
    List<Artifact> artifacts = new java.util.ArrayList<>();
    for (Fields a : v.objects("artifacts")) artifacts.add(Artifact.from(a));
    return new Upgrade(
        upgrade,
        f.string("current"),
        f.id("product_id"),
        f.string("platform"),
        f.string("arch"),
        f.string("channel"),
        v.string("version_number"),
        v.optInteger("id"),
        v.optString("title"),
        v.optString("changelog"),
        v.optBool("critical", false),
        v.optInstant("published_at"),
        List.copyOf(artifacts));
  }
}
