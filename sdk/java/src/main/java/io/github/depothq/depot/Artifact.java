package io.github.depothq.depot;

/**
 * One file of a version, as the upgrade check names it; {@link DepotClient#download} fetches it.
 *
 * @param fileName the name it is saved under (checked: a plain name, never a path)
 * @param sha256 hex, or null
 * @param sha512 base64, or null
 * @param signature the updater signature published with it (Tauri, Sparkle), or null
 */
public record Artifact(
    long id,
    long versionId,
    String platform,
    String arch,
    String fileName,
    long fileSize,
    String sha256,
    String sha512,
    String contentType,
    String signature,
    String downloadUrl) {

  static Artifact from(Fields f) throws UnverifiableException {
    Long versionId = f.optInteger("version_id");
    Long size = f.optInteger("file_size");
    return new Artifact(
        f.integer("id"),
        versionId == null ? 0 : versionId,
        f.optString("platform"),
        f.optString("arch"),
        f.string("file_name"),
        size == null ? -1 : size,
        f.optString("sha256"),
        f.optString("sha512"),
        f.optString("content_type"),
        f.optString("signature"),
        f.string("download_url"));
  }
}
