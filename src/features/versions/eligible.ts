import { createHash } from "node:crypto";
import { and, asc, desc, eq, inArray, isNotNull, isNull, type Placeholder, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/client.ts";
import { preparedOnce } from "../../db/prepared.ts";
import {
  type Arch,
  type Artifact,
  artifacts,
  type Platform,
  type ReleaseChannel,
  type RolloutStep,
  type Version,
  versions,
} from "../../db/schema/index.ts";
import { foreignKindsPattern, kindPlatform } from "../artifacts/file-names.ts";
import { artifactsOf } from "../artifacts/rows.ts";
import { channelsFor, parseSemver, type SemVer } from "./semver.ts";

/** What a client asks a feed for. */
export interface ReleaseFilter {
  /** The client's channel; it is offered every channel `channelsFor` includes. */
  channel: ReleaseChannel;
  /** `any`: every artifact, whatever its platform. */
  platform: Platform;
  /** `any`: every architecture of the platform. */
  arch: Arch;
  /** Versions of this benefit; null or absent: the whole product's versions. */
  benefitId?: number | null;
}

export interface EligibleVersion {
  version: Version;
  semver: SemVer;
  /** The version's artifacts for the platform and arch asked for, the best fit first (never empty). */
  artifacts: Artifact[];
}

/**
 * THE rule for what an updater is offered; every feed goes through it.
 *
 * `eligibleVersions` → the product's versions a client on `filter` may be offered, the highest semver
 * precedence first (equal precedence: the newer row first):
 *  - published only (no draft, nothing yanked);
 *  - whose channel is one `filter.channel` takes (Keygen's rule: `beta` gets stable, rc and beta;
 *    `stable` only stable; `dev` only dev; semver.ts `channelsFor`);
 *  - whose name is semver (a leading `v` allowed); any other name is never offered;
 *  - with at least one artifact for the platform and arch: an artifact of the same platform or of
 *    `any`, and of the same arch, `universal` or `any` (exact matches first in `artifacts`), and never
 *    a file whose kind runs on another platform only (an `.exe` on macOS, a `.dmg` on Linux), whatever
 *    platform it was stored under (artifacts/file-names.ts `kindPlatform`).
 * The staged rollout is NOT applied here: that is `newestEligible`, which needs the client's cohort.
 *
 * Reads the product's published versions of those channels in that order (the database sorts them
 * by `semver_key`) and their matching artifacts: two indexed queries, nothing written.
 */
export async function eligibleVersions(
  ctx: Pick<AppContext, "db">,
  productId: number,
  filter: ReleaseFilter,
): Promise<EligibleVersion[]> {
  const rows = await ctx.db
    .select()
    .from(versions)
    .where(publishedOfChannels(filter, productId, filter.benefitId ?? 0))
    .orderBy(...BY_PRECEDENCE);
  const named = rows.flatMap((version) => {
    const semver = parseSemver(version.versionNumber);
    return semver ? [{ version, semver }] : [];
  });
  if (named.length === 0) return [];
  const files = await artifactsOf(
    ctx,
    named.map(({ version }) => version.id),
  );
  return named
    .map(({ version, semver }) => ({
      version,
      semver,
      artifacts: fitting(files.get(version.id) ?? [], filter),
    }))
    .filter((entry) => entry.artifacts.length > 0);
}

/**
 * What a client in `cohortKey` is offered: the first of `eligibleVersions` whose rollout includes
 * the cohort (`inRollout`), so a client outside a version's rollout gets the newest eligible version
 * before it; null when none is (nothing published for that channel and platform, or every candidate
 * is at 0 %). The cohort key is whatever identifies the client across polls (the feeds use
 * `x-user-staging-id`, else the license, else the address): the same key gets the same answer.
 *
 * The feeds no longer come here: they take the first of `eligibleVersions` that the cohort's rollout
 * includes, from a per-process cache (features/updates/feed-cache.ts). This reads the database per
 * call and less than `eligibleVersions` (same rule, same answer):
 * the names and rollouts of the newest eligible versions only, ordered by the database (a file that
 * fits is checked in SQL), then the full row and the files of the one offered, together. A product
 * with fifty releases costs two small queries, not fifty version rows and a hundred artifact rows
 * (bench/README.md, update feeds).
 */
export async function newestEligible(
  ctx: Pick<AppContext, "db">,
  productId: number,
  filter: ReleaseFilter,
  cohortKey: string,
): Promise<EligibleVersion | null> {
  // One instant for the whole decision, so a schedule step passing meanwhile cannot make it loop.
  const now = new Date();
  const offered = await newestInRollout(ctx, productId, filter, cohortKey, now);
  if (!offered) return null;
  const rows = await preparedOnce(ctx.db, "feed_offered", prepareOffered).execute({ id: offered.id });
  const version = rows[0]?.version;
  // Yanked, unpublished, gone or changed since the first read: decide again on what is there now.
  if (version?.status !== "published" || effectiveRollout(version, now) !== effectiveRollout(offered, now)) {
    return newestEligible(ctx, productId, filter, cohortKey);
  }
  const files = rows.map((row) => row.artifact);
  return { version, semver: offered.semver, artifacts: fitting(files, filter) };
}

/**
 * The newest candidate whose rollout takes the cohort at `now`. The database orders the candidates by
 * precedence (the version's `semver_key`), and most polls are answered by the first of them: the first
 * few are read, and only when none of those takes the cohort are all of them.
 */
async function newestInRollout(
  ctx: Pick<AppContext, "db">,
  productId: number,
  filter: ReleaseFilter,
  cohortKey: string,
  now: Date,
) {
  const statement = preparedOnce(ctx.db, candidatesQueryName(filter), (db) => prepareCandidates(db, filter));
  for (const limit of [FIRST_CANDIDATES, ALL]) {
    const candidates = await statement.execute({ product: productId, benefit: filter.benefitId ?? 0, limit });
    for (const candidate of candidates) {
      // The key and the parser read a name alike, but a number past 2^53 is semver only to the key.
      const semver = parseSemver(candidate.name);
      if (semver && inRollout(cohortKey, candidate.id, effectiveRollout(candidate, now))) {
        return { ...candidate, semver };
      }
    }
    if (candidates.length < limit) return null;
  }
  return null;
}

const FIRST_CANDIDATES = 8;
/** A LIMIT that keeps every row: one prepared statement serves both reads. */
const ALL = Number.MAX_SAFE_INTEGER;

// Every poll runs these, so each is built and prepared once (db/prepared.ts): Drizzle assembling the
// SQL text on every call cost more CPU than the queries. The candidates' conditions depend on the
// filter's channel, platform, arch and whether a benefit is asked for: at most 240 statements.
const candidatesQueryName = (filter: ReleaseFilter) =>
  `feed_candidates:${filter.channel}:${filter.platform}:${filter.arch}:${(filter.benefitId ?? null) === null}`;

const prepareCandidates = (db: Db, filter: ReleaseFilter) =>
  db
    .select({
      id: versions.id,
      name: versions.versionNumber,
      rolloutPercentage: versions.rolloutPercentage,
      rolloutSchedule: versions.rolloutSchedule,
    })
    .from(versions)
    .where(
      and(
        publishedOfChannels(filter, sql.placeholder("product"), sql.placeholder("benefit")),
        sql`EXISTS (SELECT 1 FROM ${artifacts} WHERE ${artifacts.versionId} = ${versions.id} AND ${fitsInSql(filter)})`,
      ),
    )
    .orderBy(...BY_PRECEDENCE)
    .limit(sql.placeholder("limit"))
    .prepare(candidatesQueryName(filter).replace(/[^a-z0-9_]/gi, "_"));

/** The offered version's row with each of its files (one row per file), in one round trip. */
const prepareOffered = (db: Db) =>
  db
    .select({ version: versions, artifact: artifacts })
    .from(versions)
    .innerJoin(artifacts, eq(artifacts.versionId, versions.id))
    .where(eq(versions.id, sql.placeholder("id")))
    .orderBy(asc(artifacts.id))
    .prepare("feed_offered");

/**
 * The product's (or the benefit's) published, semver-named versions of the channels `filter.channel`
 * takes (the product and benefit as values, or as a prepared statement's placeholders).
 */
function publishedOfChannels(
  filter: ReleaseFilter,
  product: number | Placeholder,
  benefit: number | Placeholder,
) {
  return and(
    eq(versions.productId, product),
    (filter.benefitId ?? null) === null
      ? isNull(versions.purchaseBenefitId)
      : eq(versions.purchaseBenefitId, benefit),
    eq(versions.status, "published"),
    inArray(versions.channel, channelsFor(filter.channel)),
    isNotNull(versions.semverKey),
  );
}

/**
 * Highest semver precedence first, equal precedence the newer row first: `semver_key` sorts byte by
 * byte as `compareSemver` orders the names (migration 0019).
 */
const BY_PRECEDENCE = [sql`${versions.semverKey} COLLATE "C" DESC`, desc(versions.id)];

/**
 * `fitting`'s rule as a condition on an artifacts row: its platform or `any`, and not another
 * platform's kind of file; its arch, `universal` or `any`.
 */
function fitsInSql(filter: ReleaseFilter) {
  return (
    and(
      filter.platform === "any" ? undefined : inArray(artifacts.platform, [filter.platform, "any"]),
      filter.platform === "any"
        ? undefined
        : sql`${artifacts.fileName} !~* ${foreignKindsPattern(filter.platform)}`,
      filter.arch === "any" ? undefined : inArray(artifacts.arch, [filter.arch, "universal", "any"]),
    ) ?? sql`true`
  );
}

/**
 * The share of clients a version is offered to at `now`: its `rollout_percentage`, raised by every
 * step of its `rollout_schedule` whose time has come (a schedule only ever raises it; setting the
 * percentage, to 0 to halt, replaces the schedule: release.ts).
 */
export function effectiveRollout(
  version: { rolloutPercentage: number; rolloutSchedule: RolloutStep[] | null },
  now: Date = new Date(),
): number {
  let percentage = version.rolloutPercentage;
  for (const step of version.rolloutSchedule ?? []) {
    if (Date.parse(step.at) <= now.getTime()) percentage = Math.max(percentage, step.percentage);
  }
  return percentage;
}

/**
 * Whether a version at `percentage` is offered to `cohortKey`: the first 32 bits of
 * SHA-256(key, version id) as a point in [0, 100) must fall below the percentage. Hashing with the
 * version id gives each rollout a fresh draw, so the same clients are not always first; 0 offers it to
 * nobody and 100 to everybody.
 */
export function inRollout(cohortKey: string, versionId: number, percentage: number): boolean {
  if (percentage >= 100) return true;
  if (percentage <= 0) return false;
  const digest = createHash("sha256").update(`${versionId}\0${cohortKey}`).digest();
  return (digest.readUInt32BE(0) / 2 ** 32) * 100 < percentage;
}

/** Whether the file's kind can run on the platform: an `.exe` only on Windows, a `.jar` anywhere. */
const runsOn = (file: Artifact, platform: Platform) => (kindPlatform(file.fileName) ?? platform) === platform;

/** The artifacts that fit the platform and arch, exact matches before `universal` before `any`. */
function fitting(files: Artifact[], filter: ReleaseFilter): Artifact[] {
  const platformScore = (file: Artifact) =>
    filter.platform === "any"
      ? 0
      : !runsOn(file, filter.platform)
        ? null
        : file.platform === filter.platform
          ? 0
          : file.platform === "any"
            ? 1
            : null;
  const archScore = (file: Artifact) =>
    filter.arch === "any" || file.arch === filter.arch
      ? 0
      : file.arch === "universal"
        ? 1
        : file.arch === "any"
          ? 2
          : null;
  return files
    .flatMap((file) => {
      const p = platformScore(file);
      const a = archScore(file);
      return p === null || a === null ? [] : [{ file, score: p * 3 + a }];
    })
    .sort((x, y) => x.score - y.score || x.file.id - y.file.id)
    .map(({ file }) => file);
}
