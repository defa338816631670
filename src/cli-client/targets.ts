import type { Arch, Platform, ReleaseChannel } from "../db/schema/release-enums.ts";

/** Spelled out here (the client bundles nothing of the server); the records fail to compile if the server's lists change. */
const PLATFORM_NAMES: Record<Platform, true> = { windows: true, darwin: true, linux: true, any: true };
const ARCH_NAMES: Record<Arch, true> = {
  x86_64: true,
  aarch64: true,
  i686: true,
  armv7: true,
  universal: true,
  any: true,
};
const CHANNEL_NAMES: Record<ReleaseChannel, true> = {
  stable: true,
  rc: true,
  beta: true,
  alpha: true,
  dev: true,
};

export const PLATFORMS = Object.keys(PLATFORM_NAMES) as Platform[];
export const ARCHES = Object.keys(ARCH_NAMES) as Arch[];
export const CHANNELS = Object.keys(CHANNEL_NAMES) as ReleaseChannel[];

export const isPlatform = (value: string): value is Platform => Object.hasOwn(PLATFORM_NAMES, value);
export const isArch = (value: string): value is Arch => Object.hasOwn(ARCH_NAMES, value);
export const isChannel = (value: string): value is ReleaseChannel => Object.hasOwn(CHANNEL_NAMES, value);

export interface Target {
  platform: Platform;
  arch: Arch;
}

/** A word of a file name: not preceded or followed by a letter or digit (`_`, `-`, `.` and spaces separate). */
const word = (pattern: string) => new RegExp(`(?:^|[^a-z0-9])(?:${pattern})(?=$|[^a-z0-9])`);

/**
 * How the installers of electron-builder and Tauri (and the usual packagers) name their files, most
 * specific first. An extension decides where one exists only for a platform; otherwise a word of the
 * name does (`-mac.zip`, `_linux_`, `win32`).
 */
const PLATFORM_RULES: Array<[Platform, RegExp]> = [
  ["darwin", /\.(dmg|pkg|app\.tar\.gz|app\.zip)$/],
  ["windows", /\.(exe|msi|msix|appx|appxbundle|nupkg)$/],
  ["linux", /\.(appimage|deb|rpm|snap|flatpak|pacman)$/],
  ["darwin", word("mac|macos|osx|darwin|apple")],
  ["windows", word("win|win32|win64|windows")],
  ["linux", word("linux")],
];

/** Checked in this order: `x86_64` before `x86`, `arm64` before `arm`. */
const ARCH_RULES: Array<[Arch, RegExp]> = [
  ["universal", word("universal")],
  ["aarch64", word("arm64|aarch64")],
  ["armv7", word("armv7l|armv7|armhf")],
  ["x86_64", word("x86_64|x86-64|amd64|x64|win64")],
  ["i686", word("ia32|i386|i686|x86")],
];

/**
 * The platform and architecture a release file is for, from its name alone: `any` for what the name
 * does not tell (`App Setup 1.0.0.exe` is windows/any, `plugin.jar` any/any). A `.sig` or `.blockmap`
 * file is for whatever the file it signs or maps is for. `--platform`/`--arch` override this.
 */
export function targetOf(fileName: string): Target {
  const name = fileName.toLowerCase().replace(/\.(sig|blockmap)$/, "");
  const platform = PLATFORM_RULES.find(([, rule]) => rule.test(name))?.[0] ?? "any";
  const arch = ARCH_RULES.find(([, rule]) => rule.test(name))?.[0] ?? "any";
  return { platform, arch };
}
