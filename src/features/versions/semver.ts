import type { ReleaseChannel } from "../../db/schema/index.ts";

/** A version name read as Semantic Versioning 2.0.0 (a leading `v` allowed; build metadata kept apart). */
export interface SemVer {
  major: number;
  minor: number;
  patch: number;
  /** The pre-release identifiers (`beta.3` → ["beta", 3]); empty for a release. */
  prerelease: (string | number)[];
}

// semver.org's own expression, with an optional `v` in front.
const SEMVER =
  /^[vV]?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

/** The name as semver, or null when it is not one (such versions are never offered by a feed). */
export function parseSemver(name: string): SemVer | null {
  const match = SEMVER.exec(name.trim());
  if (!match) return null;
  const [, major, minor, patch, pre] = match;
  // Numbers beyond 2^53 would compare wrongly; no real version has them.
  const numbers = [major, minor, patch].map(Number);
  if (numbers.some((n) => !Number.isSafeInteger(n))) return null;
  return {
    major: numbers[0] as number,
    minor: numbers[1] as number,
    patch: numbers[2] as number,
    prerelease: pre ? pre.split(".").map((part) => (/^\d+$/.test(part) ? Number(part) : part)) : [],
  };
}

/** Semver precedence (semver.org §11): negative when a < b, 0 when equal, positive when a > b. */
export function compareSemver(a: SemVer, b: SemVer): number {
  const core = a.major - b.major || a.minor - b.minor || a.patch - b.patch;
  if (core !== 0) return Math.sign(core);
  // A release ranks above its pre-releases.
  if (a.prerelease.length === 0 || b.prerelease.length === 0)
    return Math.sign(b.prerelease.length - a.prerelease.length);
  for (let i = 0; i < Math.min(a.prerelease.length, b.prerelease.length); i++) {
    const x = a.prerelease[i] as string | number;
    const y = b.prerelease[i] as string | number;
    if (x === y) continue;
    // Numeric identifiers rank below alphanumeric ones; numbers compare as numbers, text in ASCII order.
    if (typeof x === "number" && typeof y === "number") return Math.sign(x - y);
    if (typeof x === "number") return -1;
    if (typeof y === "number") return 1;
    return x < y ? -1 : 1;
  }
  return Math.sign(a.prerelease.length - b.prerelease.length);
}

/**
 * The channel a version name implies, as Keygen derives it: no pre-release tag → `stable`; a tag whose
 * first identifier starts with `rc`, `beta` or `alpha` (any case: `RC1`, `beta.3`) → that channel;
 * any other tag (`nightly`, `1.0.0-42`) → `dev`, so an unrecognised pre-release reaches only those
 * who asked for everything. A name that is not semver → `stable` (a feed never offers it anyway).
 * Migration 0014 applies the same rule in SQL to the versions that existed before channels.
 */
export function channelOfName(name: string): ReleaseChannel {
  const version = parseSemver(name);
  const tag = version?.prerelease[0];
  if (tag === undefined) return "stable";
  const word = String(tag).toLowerCase();
  for (const channel of ["rc", "beta", "alpha"] as const) if (word.startsWith(channel)) return channel;
  return "dev";
}

/**
 * The channels a client on `channel` is offered, as in Keygen: each channel takes everything more
 * stable than itself (`beta` gets stable, rc and beta); `dev` stands apart and gets dev builds only.
 */
export function channelsFor(channel: ReleaseChannel): ReleaseChannel[] {
  switch (channel) {
    case "stable":
      return ["stable"];
    case "rc":
      return ["stable", "rc"];
    case "beta":
      return ["stable", "rc", "beta"];
    case "alpha":
      return ["stable", "rc", "beta", "alpha"];
    case "dev":
      return ["dev"];
  }
}
