// One version to download: its title, number, date and size, a plain Download link (the session
// cookie goes with it) and its changelog as the server renders it.
import { formatDate } from "../dates.ts";
import { sessionDownloadHref } from "../links.ts";
import { useLoad } from "../load.ts";
import { Loaded } from "../loaded.tsx";
import { renderChangelog, type Version } from "./api.ts";

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

function Changelog({ version }: { version: Version }) {
  const { loading } = useLoad(() => renderChangelog(version), "The changelog could not be shown.", [
    version.id,
  ]);
  return (
    <Loaded loading={loading} label="Loading the changelog…">
      {/* Sanitised by the server (POST /api/changelog/preview): the same HTML the e-mails carry. */}
      {(html) => <div class="changelog" dangerouslySetInnerHTML={{ __html: html }} />}
    </Loaded>
  );
}

export type HeadingLevel = 3 | 4 | 5;

/** `level`: the heading under the product's h2 (a benefit's versions sit one level deeper). */
export function VersionEntry({ version, level }: { version: Version; level: HeadingLevel }) {
  const Heading = `h${level}` as "h3";
  return (
    <article class="version" aria-label={`${version.title} ${version.version_number}`}>
      <Heading class="version-title">
        {version.title} <span class="version-number">{version.version_number}</span>
      </Heading>
      <p class="hint">
        <time dateTime={version.created_at}>{formatDate(version.created_at)}</time> · {version.file_name} ·{" "}
        {formatSize(version.file_size)}
      </p>
      <p>
        <a class="download" href={sessionDownloadHref(version.download_url)} download={version.file_name}>
          Download <span class="visually-hidden">{`${version.title} ${version.version_number}`}</span>
        </a>
      </p>
      <Changelog version={version} />
    </article>
  );
}
