// A yanked version, marked as such wherever it is shown (the version lists, Downloads, Notifications,
// Versions), with the reason its vendor gave: a reader who sees the version sees why it was withdrawn.
import type { Version } from "./wire.ts";

export function YankedMark({ version }: { version: Pick<Version, "status" | "yank_reason"> }) {
  if (version.status !== "yanked") return null;
  return (
    <span class="yanked">
      <span class="badge danger">Yanked</span>
      {version.yank_reason && (
        <span class="yank-reason">
          {" "}
          Reason: <bdi>{version.yank_reason}</bdi>
        </span>
      )}
    </span>
  );
}
