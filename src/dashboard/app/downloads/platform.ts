// Which of a version's files suits the reader: the one for the platform their browser runs on comes
// first, then the files for any platform, then the others as they were published.
import type { Artifact, Platform } from "../wire.ts";

/** The platform this browser runs on, as artifacts name it; null when it cannot tell (a phone, say). */
export function browserPlatform(userAgent = navigator.userAgent): Platform | null {
  if (/Windows/.test(userAgent)) return "windows";
  if (/Macintosh|Mac OS X/.test(userAgent)) return "darwin";
  if (/Linux|X11/.test(userAgent) && !/Android/.test(userAgent)) return "linux";
  return null;
}

export function forPlatform(artifacts: Artifact[], platform: Platform | null): Artifact[] {
  const rank = (artifact: Artifact) =>
    artifact.platform === platform ? 0 : artifact.platform === "any" ? 1 : 2;
  return artifacts
    .map((artifact, index) => ({ artifact, index }))
    .sort((a, b) => rank(a.artifact) - rank(b.artifact) || a.index - b.index)
    .map(({ artifact }) => artifact);
}
