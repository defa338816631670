// The button under a list that adds its next page, while there is one; a failure is shown above it.
import { ErrorAlert } from "./error-alert.tsx";
import type { More } from "./listing.ts";

/** `noun` names what is listed: "Show more licenses". */
export function ShowMore({ more, noun }: { more: More; noun: string }) {
  if (!more.available) return null;
  return (
    <div class="show-more">
      <ErrorAlert message={more.error} />
      <button type="button" class="secondary" onClick={() => void more.show()} disabled={more.busy}>
        {more.busy ? `Loading more ${noun}…` : `Show more ${noun}`}
      </button>
    </div>
  );
}
