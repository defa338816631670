// "Older versions" of one product or benefit: loaded when first opened, from the versions API (which
// lists the whole product, so only this release line's are kept, without the latest shown above).
import { useState } from "preact/hooks";
import { LISTED, messageOf } from "../api.ts";
import { listVersions, type Version } from "./api.ts";
import { type HeadingLevel, VersionEntry } from "./version.tsx";

type Older =
  | { state: "closed" }
  | { state: "loading" }
  | { state: "failed"; message: string }
  | { state: "loaded"; versions: Version[]; more: boolean };

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
  const regionId = `older-${productId}-${benefitId ?? "product"}`;

  const toggle = async () => {
    if (open) return setOpen(false);
    setOpen(true);
    if (older.state === "loaded" || older.state === "loading") return;
    setOlder({ state: "loading" });
    try {
      const { versions, more } = await listVersions(productId);
      const mine = versions.filter((v) => v.purchase_benefit_id === benefitId && v.id !== latest.id);
      setOlder({ state: "loaded", versions: mine, more });
    } catch (failure) {
      setOlder({ state: "failed", message: messageOf(failure, "The older versions could not be loaded.") });
    }
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
          (older.versions.length === 0 ? (
            <p class="empty">No older versions: this is the first release.</p>
          ) : (
            older.versions.map((version) => <VersionEntry key={version.id} version={version} level={level} />)
          ))}
        {older.state === "loaded" && older.more && (
          <p class="hint">Only versions among the newest {LISTED} of the product are listed.</p>
        )}
      </div>
    </div>
  );
}
