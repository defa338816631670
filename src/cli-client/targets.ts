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
