// The value lists of versions and artifacts, in a file of their own (no Drizzle imports) so the
// dashboard and the feeds offer the same lists without bundling the schema.

/** Release channels, least to most adventurous but `dev`, which stands apart (semver.ts). */
export const RELEASE_CHANNELS = ["stable", "rc", "beta", "alpha", "dev"] as const;
export type ReleaseChannel = (typeof RELEASE_CHANNELS)[number];

export const VERSION_STATUSES = ["draft", "published", "yanked"] as const;
export type VersionStatus = (typeof VERSION_STATUSES)[number];

export const PLATFORMS = ["windows", "darwin", "linux", "any"] as const;
export type Platform = (typeof PLATFORMS)[number];

export const ARCHES = ["x86_64", "aarch64", "i686", "armv7", "universal", "any"] as const;
export type Arch = (typeof ARCHES)[number];
