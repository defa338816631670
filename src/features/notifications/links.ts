import type { AppContext } from "../../context.ts";
import type { VersionPublishedData } from "../../db/schema/index.ts";
import { signUrl } from "../../signed-url.ts";
import { downloadUrl } from "../versions/urls.ts";

/** How long a notification's download link works, counted from the notification (or the delivery). */
const LINK_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;

type LinkContext = Pick<AppContext, "appKey" | "config">;

/**
 * A `version.published` event's data as one user receives it: the download link signed for that user,
 * valid for 7 days from `issuedAt`. Links are signed when shown, not stored: the fan-out writes every
 * holder's notification in one statement, and each link must name its own user, whose right to
 * download is checked again whenever the link is used. The same inputs give the same link, so a
 * retried e-mail or webhook attempt sends the same bytes; links stored by an older depot (signed for
 * nobody) are replaced by ones that name the user.
 */
export function withDownloadLink(
  ctx: LinkContext,
  data: VersionPublishedData,
  userId: number,
  issuedAt: Date,
): VersionPublishedData {
  const url = downloadUrl(ctx.config.appUrl, { productId: data.product_id, id: data.version_id });
  const expiresAt = new Date(issuedAt.getTime() + LINK_LIFETIME_MS);
  return { ...data, download_url: signUrl(url, ctx.appKey, { userId, expiresAt }) };
}

/**
 * A webhook payload as the endpoint's owner receives it (and sees it listed): a `version.published`
 * event carries a link signed for them; any other payload is sent as stored.
 */
export function payloadFor(ctx: LinkContext, payload: unknown, userId: number, issuedAt: Date): unknown {
  if (!isVersionPublished(payload)) return payload;
  return { ...payload, data: withDownloadLink(ctx, payload.data, userId, issuedAt) };
}

function isVersionPublished(payload: unknown): payload is { type: string; data: VersionPublishedData } {
  if (typeof payload !== "object" || payload === null) return false;
  const { type, data } = payload as { type?: unknown; data?: Partial<VersionPublishedData> | null };
  return (
    (type === "version.published" || type === "version.yanked") &&
    typeof data === "object" &&
    data !== null &&
    typeof data.product_id === "number" &&
    typeof data.version_id === "number"
  );
}
