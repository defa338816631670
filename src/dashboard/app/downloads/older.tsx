// "Older versions" of one product or benefit: loaded when first opened, from the versions API (which
// lists the whole product, so only this release line's are kept, without the latest shown above).
import { useState } from "preact/hooks";
import { messageOf } from "../api.ts";
import { type Listing, listing, type More } from "../listing.ts";
import { ShowMore } from "../show-more.tsx";
import type { Version } from "../wire.ts";
import { listVersions } from "./api.ts";
import { type HeadingLevel, VersionEntry } from "./version.tsx";

type Older =
  | { state: "closed" }
  | { state: "loading" }
  | { state: "failed"; message: string }
  | { state: "loaded"; versions: Version[]; next: string | null };

interface Props {
  productId: number;
  /** The benefit's release line, or null for the product's own. */
  benefitId: number | null;
  latest: Version;
  /** What these are versions of, for the button's accessible name. */
  of: string;
  level: HeadingLevel;
}

export function OlderVersions({ productId, benefitId, latest, of, level }: Props) {
  const [older, setOlder] = useState<Older>({ state: "closed" });
  const [open, setOpen] = useState(false);
  const [asking, setAsking] = useState<{ busy: boolean; error: string | null }>({ busy: false, error: null });
  const regionId = `older-${productId}-${benefitId ?? "product"}`;
  const mine = (page: Listing<Version>) =>
    page.items.filter((v) => v.purchase_benefit_id === benefitId && v.id !== latest.id);

  const toggle = async () => {
    if (open) return setOpen(false);
    setOpen(true);
    if (older.state === "loaded" || older.state === "loading") return;
    setOlder({ state: "loading" });
    try {
      const page = await listVersions(productId);
      setOlder({ state: "loaded", versions: mine(page), next: page.next });
    } catch (failure) {
      setOlder({ state: "failed", message: messageOf(failure, "The older versions could not be loaded.") });
    }
  };

  // The product's next page of versions, of which this line's are added.
  const more: More = {
    available: older.state === "loaded" && older.next !== null,
    ...asking,
    show: async () => {
      if (older.state !== "loaded" || older.next === null) return;
      setAsking({ busy: true, error: null });
      try {
        const page = await listing<Version>(older.next);
        const shown = new Set(older.versions.map((v) => v.id));
        const added = mine(page).filter((v) => !shown.has(v.id));
        setOlder({ state: "loaded", versions: [...older.versions, ...added], next: page.next });
        setAsking({ busy: false, error: null });
      } catch (failure) {
        setAsking({ busy: false, error: messageOf(failure, "The next page could not be loaded.") });
      }
    },
  };

  return (
    <div class="older">
      <button
        type="button"
        class="secondary"
        aria-expanded={open}
        aria-controls={regionId}
        aria-label={`Older versions of ${of}`}
        onClick={toggle}
      >
        Older versions
      </button>
      <div id={regionId} hidden={!open}>
        {older.state === "loading" && <p aria-live="polite">Loading older versions…</p>}
        {older.state === "failed" && (
          <p class="error" role="alert">
            {older.message}
          </p>
        )}
        {older.state === "loaded" &&
          (older.versions.length === 0 && older.next === null ? (
            <p class="empty">No older versions: this is the first release.</p>
          ) : (
            older.versions.map((version) => <VersionEntry key={version.id} version={version} level={level} />)
          ))}
        <ShowMore more={more} noun="older versions" />
      </div>
    </div>
  );
}
