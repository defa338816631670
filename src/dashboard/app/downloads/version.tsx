// One version to download: its title, number, date and size, a plain Download link (the session
// cookie goes with it) and its changelog as the server renders it.
import { formatDate } from "../dates.ts";
import { sessionDownloadHref } from "../links.ts";
import { useLoad } from "../load.ts";
import { Loaded } from "../loaded.tsx";
import { platformName } from "../products/target-fields.tsx";
import type { Version } from "../wire.ts";
import { YankedMark } from "../yanked.tsx";
import { renderChangelog } from "./api.ts";
import { browserPlatform, forPlatform } from "./platform.ts";

const UNITS = ["bytes", "KB", "MB", "GB", "TB"];

/** 1536 → "1.5 KB" (powers of 1024, as file managers count). */
export function formatSize(bytes: number): string {
  let size = bytes;
  let unit = 0;
  while (size >= 1024 && unit < UNITS.length - 1) {
    size /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} bytes` : `${size.toFixed(size < 10 ? 1 : 0)} ${UNITS[unit]}`;
}

/**
 * A changelog may show images from other hosts, which the dashboard's CSP (`default-src 'self'`) would
 * refuse (and report): such an image becomes a link to it instead. DOMParser's document is inert, so
 * nothing is fetched while the HTML is rewritten.
 */
function withoutForeignImages(html: string): string {
  const document = new DOMParser().parseFromString(html, "text/html");
  for (const image of Array.from(document.images)) {
    const src = image.getAttribute("src") ?? "";
    if (new URL(src, location.origin).origin === location.origin) continue;
    const link = document.createElement("a");
    link.href = src;
    link.textContent = image.alt || "Image";
    image.replaceWith(link);
  }
  return document.body.innerHTML;
}

function Changelog({ version }: { version: Version }) {
  const { loading } = useLoad(
    async () => withoutForeignImages(await renderChangelog(version)),
    "The changelog could not be shown.",
    [version.id],
  );
  return (
    <Loaded loading={loading} label="Loading the changelog…">
      {/* Sanitised by the server (POST /api/changelog/preview): the same HTML the e-mails carry. */}
      {(html) => <div class="changelog" dir="auto" dangerouslySetInnerHTML={{ __html: html }} />}
    </Loaded>
  );
}

export type HeadingLevel = 3 | 4 | 5;

/** `level`: the heading under the product's h2 (a benefit's versions sit one level deeper). */
/** The files people download: an updater's own (a `-mac.zip` beside the `.dmg`) is left to the feeds. */
const forPeople = (artifacts: Version["artifacts"]) =>
  artifacts.filter((artifact) => !artifact.updaters_only);

export function VersionEntry({ version, level }: { version: Version; level: HeadingLevel }) {
  const Heading = `h${level}` as "h3";
  return (
    <article class="version" aria-label={`${version.title} ${version.version_number}`}>
      <Heading class="version-title">
        <bdi>{version.title}</bdi> <bdi class="version-number">{version.version_number}</bdi>
      </Heading>
      {version.status === "yanked" && (
        <p>
          <YankedMark version={version} />
        </p>
      )}
      <p class="hint">
        <time dateTime={version.created_at}>{formatDate(version.created_at)}</time> ·{" "}
        <bdi>{version.file_name}</bdi> · {formatSize(version.file_size)}
      </p>
      {forPeople(version.artifacts).length > 1 ? (
        <ul class="artifact-downloads">
          {forPlatform(forPeople(version.artifacts), browserPlatform()).map((artifact, index) => (
            <li key={artifact.id}>
              <a
                class={index === 0 ? "download" : undefined}
                href={sessionDownloadHref(artifact.download_url)}
                download={artifact.file_name}
              >
                {`Download for ${platformName(artifact)}`}
              </a>{" "}
              <span class="hint">
                <bdi>{artifact.file_name}</bdi> · {formatSize(artifact.file_size)}
              </span>
            </li>
          ))}
        </ul>
      ) : (
        <p>
          <a class="download" href={sessionDownloadHref(version.download_url)} download={version.file_name}>
            Download <span class="visually-hidden">{`${version.title} ${version.version_number}`}</span>
          </a>
        </p>
      )}
      <Changelog version={version} />
    </article>
  );
}
