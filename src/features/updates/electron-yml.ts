/**
 * electron-builder's update info file (`latest.yml`, `beta-mac.yml`, …) for electron-updater's
 * `generic` provider, in the shape electron-builder writes it. The shape is fixed and flat, so it is
 * written here rather than by a YAML library: every string is a double-quoted scalar, which YAML
 * reads exactly as JSON writes it (so `1.10` stays the string "1.10", and no changelog can break out
 * of its field), and every number is a plain integer.
 */

export interface ElectronUpdateFile {
  url: string;
  /** Base64 SHA-512, what electron-updater checks a download against. */
  sha512: string | null;
  /** Hex SHA-256, electron-updater's older `sha2`, for a file whose SHA-512 is not known. */
  sha256: string;
  size: number;
}

export interface ElectronUpdateInfo {
  version: string;
  files: ElectronUpdateFile[];
  releaseDate: Date;
  releaseNotes: string;
}

/**
 * Characters YAML does not allow raw in a double-quoted scalar (C1 controls, DEL, the BOM) or reads
 * as line breaks (U+2028, U+2029); JSON.stringify escapes the C0 controls itself.
 */
const UNSAFE = /[\u007f-\u009f\u2028\u2029\ufeff]/g;

/** A double-quoted YAML scalar: JSON's escapes, which YAML's double-quoted style shares. */
export function yamlString(value: string): string {
  return JSON.stringify(value).replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** The file's checksum line(s), indented under its list item. */
function checksum(file: ElectronUpdateFile, indent: string): string[] {
  return file.sha512 !== null
    ? [`${indent}sha512: ${yamlString(file.sha512)}`]
    : [`${indent}sha2: ${yamlString(file.sha256)}`];
}

/**
 * The update info as YAML. `path` and the top-level `sha512` repeat the first file, as electron-builder
 * writes them for older clients. No `stagingPercentage`: depot decides the rollout before answering.
 */
export function electronYml(info: ElectronUpdateInfo): string {
  const [first] = info.files;
  if (!first) throw new Error("an update info file lists at least one file");
  const lines = [`version: ${yamlString(info.version)}`, "files:"];
  for (const file of info.files) {
    lines.push(`  - url: ${yamlString(file.url)}`, ...checksum(file, "    "), `    size: ${file.size}`);
  }
  lines.push(
    `path: ${yamlString(first.url)}`,
    ...checksum(first, ""),
    `releaseDate: ${yamlString(info.releaseDate.toISOString())}`,
    `releaseNotes: ${yamlString(info.releaseNotes)}`,
  );
  return `${lines.join("\n")}\n`;
}
