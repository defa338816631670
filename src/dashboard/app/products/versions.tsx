// A product's versions, newest first: what each is, its file and downloads, a Download link, and for
// those who may publish a Delete button (after a confirm) and the version's files and release.
import { useState } from "preact/hooks";
import { formatDate } from "../dates.ts";
import type { Listing, More } from "../listing.ts";
import { ShowMore } from "../show-more.tsx";
import { formatBytes } from "../sizes.ts";
import type { Version } from "../wire.ts";
import { downloadPath } from "./api.ts";
import { ReleaseBadges, ReleasePanel } from "./release-panel.tsx";

interface Props {
  productId: number;
  listing: Listing<Version>;
  more: More;
  /** Offer Delete (the server refuses anyone else anyway). */
  mayDelete: boolean;
  deleting: number | null;
  onDelete: (version: Version) => void;
  /** A version's files or release changed: the list is read again. */
  onChanged: () => void;
}

export function VersionList({ productId, listing, more, mayDelete, deleting, onDelete, onChanged }: Props) {
  if (listing.items.length === 0) {
    return (
      <p class="empty">
        No versions yet.{mayDelete ? " Publish the first one below." : " The product's publishers add them."}
      </p>
    );
  }
  return (
    <>
      <ul class="rows versions">
        {listing.items.map((version) => (
          <li key={version.id} class="row version">
            <div class="row-main">
              <span>
                <strong>
                  <bdi>{version.version_number}</bdi> <bdi class="version-subtitle">{version.title}</bdi>
                </strong>{" "}
                <ReleaseBadges version={version} />
              </span>
              <span class="hint">
                <time dateTime={version.created_at}>{formatDate(version.created_at)}</time>
                {version.benefit_name && (
                  <>
                    {" · "}
                    <bdi>{version.benefit_name}</bdi>
                  </>
                )}
                {" · "}
                <bdi>{version.file_name}</bdi>
                {`, ${formatBytes(version.file_size)}`}
                {` · ${version.downloads === "1" ? "1 download" : `${version.downloads} downloads`}`}
              </span>
            </div>
            <div class="row-actions">
              <a
                href={downloadPath(productId, version)}
                download
                aria-label={`Download ${version.version_number}`}
              >
                Download
              </a>
              {mayDelete && (
                <button
                  type="button"
                  class="danger"
                  onClick={() => onDelete(version)}
                  disabled={deleting === version.id}
                  aria-label={`Delete ${version.version_number}`}
                >
                  {deleting === version.id ? "Deleting…" : "Delete"}
                </button>
              )}
            </div>
            {mayDelete && <ReleaseDetails productId={productId} version={version} onChanged={onChanged} />}
          </li>
        ))}
      </ul>
      <ShowMore more={more} noun="versions" />
    </>
  );
}

/**
 * A version's files and release, under its row. The panel (its forms, a file input among them) is
 * rendered only while open: a list of versions holds no hidden forms.
 */
function ReleaseDetails({
  productId,
  version,
  onChanged,
}: {
  productId: number;
  version: Version;
  onChanged: () => void;
}) {
  const [open, setOpen] = useState(false);
  const files = version.artifacts.length;
  return (
    <details class="row-details" open={open} onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>{`Files and release (${files} ${files === 1 ? "file" : "files"})`}</summary>
      {open && <ReleasePanel productId={productId} version={version} onChanged={onChanged} />}
    </details>
  );
}
