import { and, eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { type Version, type VersionStatus, versions } from "../../db/schema/index.ts";
import { withTransaction } from "../../db/transaction.ts";
import { Forbidden, Invalid, NotFound } from "../../errors.ts";
import { form } from "../../validation/form.ts";
import type { Actor } from "../auth/actor.ts";
import { findVisibleProduct } from "../products/service.ts";
import { feedChanged } from "../updates/feed-cache.ts";
import { versionPublished, versionYanked } from "./jobs.ts";
import type { VersionRow } from "./rows.ts";
import { ReleaseChange } from "./schemas.ts";
import { findVersion, mayPublish } from "./service.ts";

/** PATCH's body: the schema says everything a field may be; the transitions depend on the version. */
export const ReleaseChangeForm = form(ReleaseChange, async () => {});

/**
 * The status changes a vendor may make. A draft is released (published); a published version is
 * yanked and a yank undone. A published or yanked version never goes back to draft: its holders were
 * told of it. Setting the status a version already has changes nothing.
 */
const TRANSITIONS: Record<VersionStatus, VersionStatus[]> = {
  draft: ["published"],
  published: ["yanked"],
  yanked: ["published"],
};

/**
 * Changes a version's release state for whoever may publish to its product (others who can see the
 * product get 403, the rest 404), under the version's row lock so that two requests cannot both
 * make the same transition. Releasing a draft enqueues `version.published` (holders are notified
 * once, then); yanking enqueues `version.yanked` (holders who downloaded it are told the reason),
 * both in the same transaction.
 */
export async function changeRelease(
  ctx: Pick<AppContext, "db" | "jobs">,
  actor: Actor,
  ids: { product: number; version: number },
  change: ReleaseChange,
): Promise<VersionRow> {
  const product = await findVisibleProduct(ctx, actor, ids.product);
  if (!mayPublish(actor, product)) throw new Forbidden();
  await withTransaction(ctx, async (tx) => {
    const [current] = await tx.db
      .select()
      .from(versions)
      .where(and(eq(versions.productId, product.id), eq(versions.id, ids.version)))
      .for("update");
    if (!current) throw new NotFound("Version");
    const next = nextState(current, change);
    await tx.db.update(versions).set(next).where(eq(versions.id, current.id));
    await feedChanged(tx, product.id);
    if (current.status === "draft" && next.status === "published")
      await ctx.jobs.sendInTransaction(tx.db, versionPublished, { version_id: current.id });
    if (current.status !== "yanked" && next.status === "yanked")
      await ctx.jobs.sendInTransaction(tx.db, versionYanked, { version_id: current.id });
  });
  return findVersion(ctx, product.id, ids.version);
}

/** A schedule kept in time order, each time as ISO 8601; an empty one is none. */
const sortedSteps = (steps: ReleaseChange["rollout_schedule"]) =>
  steps?.length
    ? steps
        .map((step) => ({ at: new Date(step.at).toISOString(), percentage: step.percentage }))
        .sort((a, b) => a.at.localeCompare(b.at))
    : null;

/** The version's columns after the change, or a 422 naming every field the change may not make. */
function nextState(current: Version, change: ReleaseChange) {
  const status = change.status ?? current.status;
  const errors: Record<string, string[]> = {};
  if (status !== current.status && !TRANSITIONS[current.status].includes(status)) {
    errors.status = [`A ${current.status} version cannot become ${status}.`];
  }
  // A yank says why (holders are told); the reason belongs to a yank only.
  const reason = status === "yanked" ? (change.yank_reason ?? current.yankReason) : null;
  if (status === "yanked" && (reason === null || reason.trim() === "")) {
    errors.yank_reason = ["The yank reason field is required when the status is yanked."];
  }
  if (status !== "yanked" && change.yank_reason !== undefined && change.yank_reason !== null) {
    errors.yank_reason = ["The yank reason field is only allowed when the status is yanked."];
  }
  if (Object.keys(errors).length > 0) throw new Invalid(errors);
  return {
    status,
    yankReason: reason,
    // First publication only: un-yanking keeps the date holders were first told of it.
    publishedAt: current.publishedAt ?? (status === "published" ? new Date() : null),
    critical: change.critical ?? current.critical,
    channel: change.channel ?? current.channel,
    rolloutPercentage: change.rollout_percentage ?? current.rolloutPercentage,
    // A percentage set by hand (0 halts) replaces the schedule, unless one is sent with it.
    rolloutSchedule:
      change.rollout_schedule !== undefined
        ? sortedSteps(change.rollout_schedule)
        : change.rollout_percentage !== undefined
          ? null
          : current.rolloutSchedule,
  };
}
