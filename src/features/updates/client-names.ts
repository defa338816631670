import type { Arch, Platform, ReleaseChannel } from "../../db/schema/index.ts";

/**
 * How each updater names what it runs on, turned into depot's platforms, architectures and channels.
 * Each function answers null for a name it does not know; the route turns that into its 4xx. The
 * tables are Maps: a client's `constructor` must find nothing, not Object's own function.
 */

export interface ElectronChannelFile {
  channel: ReleaseChannel;
  platform: Platform;
  /** `any` where one file lists every architecture (Windows and macOS; electron-updater picks). */
  arch: Arch;
}

/** electron-updater's channel names: `latest` is what electron-builder calls the stable channel. */
const ELECTRON_CHANNELS = new Map<string, ReleaseChannel>([
  ["latest", "stable"],
  ["rc", "rc"],
  ["beta", "beta"],
  ["alpha", "alpha"],
  ["dev", "dev"],
]);

/** electron-updater's file suffix on Linux is `-linux` for x64, else `-linux-{process.arch}`. */
const ELECTRON_SUFFIXES = new Map<string, { platform: Platform; arch: Arch }>([
  ["", { platform: "windows", arch: "any" }],
  ["-mac", { platform: "darwin", arch: "any" }],
  ["-linux", { platform: "linux", arch: "x86_64" }],
  ["-linux-arm64", { platform: "linux", arch: "aarch64" }],
  ["-linux-armv7l", { platform: "linux", arch: "armv7" }],
  ["-linux-ia32", { platform: "linux", arch: "i686" }],
]);

/** `latest.yml`, `beta-mac.yml`, `latest-linux-arm64.yml`, … as electron-updater asks for them. */
export function electronChannelFile(name: string): ElectronChannelFile | null {
  const match = /^([a-z]+)((?:-[a-z0-9]+)*)\.yml$/.exec(name);
  if (!match) return null;
  const channel = ELECTRON_CHANNELS.get(match[1] as string);
  const target = ELECTRON_SUFFIXES.get(match[2] as string);
  return channel && target ? { channel, ...target } : null;
}

/** Tauri's `{{target}}` (`windows`, `darwin`, `linux`), optionally with its bundle: `windows-nsis`. */
export interface TauriTarget {
  platform: Platform;
  /** `nsis`, `msi`, `app`, `appimage`, `deb`, `rpm`; null when the target names none. */
  bundle: string | null;
}

export function tauriTarget(target: string): TauriTarget | null {
  const match = /^(windows|darwin|linux)(?:-([a-z]+))?$/.exec(target);
  if (!match) return null;
  return { platform: match[1] as Platform, bundle: match[2] ?? null };
}

/** The file names a Tauri bundle's updater archive ends with, so a target's bundle picks its file. */
const BUNDLE_ENDINGS = new Map<string, string[]>([
  ["nsis", [".nsis.zip", "-setup.exe", ".exe"]],
  ["msi", [".msi.zip", ".msi"]],
  ["app", [".app.tar.gz"]],
  ["appimage", [".appimage.tar.gz", ".appimage"]],
  ["deb", [".deb"]],
  ["rpm", [".rpm"]],
]);

/** Whether `fileName` is the kind of file `bundle` installs from (any file when no bundle is named). */
export function fitsBundle(fileName: string, bundle: string | null): boolean {
  if (bundle === null) return true;
  const name = fileName.toLowerCase();
  return (BUNDLE_ENDINGS.get(bundle) ?? []).some((ending) => name.endsWith(ending));
}

/**
 * Architectures as updaters spell them: Tauri's `{{arch}}` uses depot's names; Electron's
 * `process.arch` (what a Squirrel.Mac feed URL is usually built from) says `x64` and `arm64`.
 */
const ARCH_NAMES = new Map<string, Arch>([
  ["x86_64", "x86_64"],
  ["aarch64", "aarch64"],
  ["i686", "i686"],
  ["armv7", "armv7"],
  ["universal", "universal"],
  ["x64", "x86_64"],
  ["arm64", "aarch64"],
  ["ia32", "i686"],
  ["armv7l", "armv7"],
]);

export function clientArch(name: string): Arch | null {
  return ARCH_NAMES.get(name) ?? null;
}
