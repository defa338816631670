import type { Arch, Platform } from "../../db/schema/release-enums.ts";

// What a release file's name says about it, read the same way by `depot publish` (before it sends the
// file) and by the server (when a request names no platform or arch): one table, no HTTP, no database.

export interface Target {
  platform: Platform;
  arch: Arch;
}

/** A word of a file name: not preceded or followed by a letter or digit (`_`, `-`, `.` and spaces separate). */
const word = (pattern: string) => `(?:^|[^a-z0-9])(?:${pattern})(?=$|[^a-z0-9])`;

/**
 * File kinds that run on one platform only, whatever platform they were published for: an installer
 * or package format that no other platform opens. Written as patterns both JavaScript and PostgreSQL
 * (`~*`) read alike, so the feeds' SQL applies the same rule (features/versions/eligible.ts).
 */
const KIND_PATTERNS: Array<[Exclude<Platform, "any">, string]> = [
  ["darwin", String.raw`(\.(dmg|pkg|app\.tar\.gz|app\.zip)|-mac\.zip)$`],
  ["windows", String.raw`(\.(exe|msi|msix|appx|appxbundle|nupkg)|\.(nsis|msi)\.zip)$`],
  ["linux", String.raw`(\.(appimage|deb|rpm|snap|flatpak|pacman)|\.appimage\.tar\.gz)$`],
];

/**
 * How the installers of electron-builder and Tauri (and the usual packagers) name their files, most
 * specific first. The file's kind decides where it runs on one platform only; otherwise a word of the
 * name does (`_linux_`, `win32`).
 */
const PLATFORM_RULES: Array<[Platform, RegExp]> = [
  ...KIND_PATTERNS.map(([platform, pattern]): [Platform, RegExp] => [platform, new RegExp(pattern)]),
  ["darwin", new RegExp(word("mac|macos|osx|darwin|apple"))],
  ["windows", new RegExp(word("win|win32|win64|windows"))],
  ["linux", new RegExp(word("linux"))],
];

/** Checked in this order: `x86_64` before `x86`, `arm64` before `arm`. */
const ARCH_RULES: Array<[Arch, RegExp]> = [
  ["universal", word("universal")],
  ["aarch64", word("arm64|aarch64")],
  ["armv7", word("armv7l|armv7|armhf")],
  ["x86_64", word("x86_64|x86-64|amd64|x64|win64")],
  ["i686", word("ia32|i386|i686|x86")],
].map(([arch, pattern]) => [arch as Arch, new RegExp(pattern as string)]);

/** The name as the rules read it: lower case, without a `.sig` or `.blockmap` (those are for the file they sign or map). */
const normalised = (fileName: string) => fileName.toLowerCase().replace(/\.(sig|blockmap)$/, "");

/**
 * The platform and architecture a release file is for, from its name alone: `any` for what the name
 * does not tell (`App Setup 1.0.0.exe` is windows/any, `plugin.jar` any/any). A `.sig` or `.blockmap`
 * file is for whatever the file it signs or maps is for. A platform or arch given with the file
 * overrides this.
 */
export function targetOf(fileName: string): Target {
  const name = normalised(fileName);
  const platform = PLATFORM_RULES.find(([, rule]) => rule.test(name))?.[0] ?? "any";
  const arch = ARCH_RULES.find(([, rule]) => rule.test(name))?.[0] ?? "any";
  return { platform, arch };
}

/** The one platform a file of this kind runs on (`.exe` Windows, `.dmg` macOS, `.deb` Linux), or null. */
export function kindPlatform(fileName: string): Exclude<Platform, "any"> | null {
  const name = normalised(fileName);
  return KIND_PATTERNS.find(([, pattern]) => new RegExp(pattern).test(name))?.[0] ?? null;
}

/**
 * A case-insensitive pattern (PostgreSQL's `~*`, or a RegExp with the `i` flag) matching the file kinds
 * that cannot run on `platform`: what a feed for that platform never offers.
 */
export function foreignKindsPattern(platform: Exclude<Platform, "any">): string {
  return KIND_PATTERNS.filter(([kind]) => kind !== platform)
    .map(([, pattern]) => pattern)
    .join("|");
}

/**
 * What updaters download and people do not: electron-builder's `-mac.zip` (Squirrel.Mac's; people get
 * the `.dmg`), Tauri's update bundles (`.app.tar.gz`, `.AppImage.tar.gz`, `.nsis.zip`, `.msi.zip`) and
 * Squirrel.Windows' `.nupkg`. Blockmaps and `.sig`s are kept on their file, never files of their own.
 * Also written for PostgreSQL's `~*` (the migration that marked the files stored before).
 */
export const UPDATERS_ONLY_PATTERN = String.raw`(-mac\.zip|\.app\.tar\.gz|\.appimage\.tar\.gz|\.(nsis|msi)\.zip|\.nupkg)$`;

/** Whether a file of this name is for updaters only, unless its publisher says otherwise. */
export const forUpdatersOnly = (fileName: string) => new RegExp(UPDATERS_ONLY_PATTERN, "i").test(fileName);
