import type { AppContext } from "../../context.ts";
import { ARCHES, type Arch, PLATFORMS, type Platform, RELEASE_CHANNELS } from "../../db/schema/index.ts";
import { FieldErrors } from "../../errors.ts";
import { toVersionJson } from "../versions/json.ts";
import type { OpenFeed } from "./access.ts";
import type { UpgradeJson, UpgradeQuery } from "./json.ts";
import { currentVersion, isNewer, offeredVersion } from "./offer.ts";

const oneOf = <T extends string>(list: readonly T[], value: string | undefined, fallback: T) =>
  value === undefined ? fallback : (list as readonly string[]).includes(value) ? (value as T) : null;

/**
 * depot's own upgrade check, for apps that use depot's SDKs rather than an updater framework: the
 * version the client is offered on its platform, arch and channel (the same decision every feed
 * makes, rollout included), with only the artifacts that fit. The route signs the answer as it
 * signs a validation, so a client can tell it from one a fake server made up.
 */
export async function upgradeCheck(
  ctx: Pick<AppContext, "db" | "config" | "updateChecks">,
  { access, cohort }: OpenFeed,
  query: UpgradeQuery,
): Promise<UpgradeJson> {
  const errors = new FieldErrors();
  const current = currentVersion(query.version, "version", errors);
  const platform = oneOf<Platform>(PLATFORMS, query.platform, "any");
  if (!platform) errors.add("platform", `The platform must be one of ${PLATFORMS.join(", ")}.`);
  const arch = oneOf<Arch>(ARCHES, query.arch, "any");
  if (!arch) errors.add("arch", `The arch must be one of ${ARCHES.join(", ")}.`);
  const channel = oneOf(RELEASE_CHANNELS, query.channel, "stable");
  if (!channel) errors.add("channel", `The channel must be one of ${RELEASE_CHANNELS.join(", ")}.`);
  errors.throwIfAny();
  if (!current || !platform || !arch || !channel) throw new Error("checked above");
  ctx.updateChecks.add({
    productId: access.product.id,
    feed: "upgrade",
    channel,
    platform,
    currentVersion: query.version,
    client: cohort,
  });
  const offer = await offeredVersion(ctx, access, { channel, platform, arch }, cohort);
  const upgrade = isNewer(offer, current);
  return {
    upgrade,
    current: query.version,
    product_id: String(access.product.id),
    platform,
    arch,
    channel,
    nonce: query.nonce ?? null,
    version: upgrade ? toVersionJson({ ...offer, benefit: null }, ctx.config.appUrl) : null,
  };
}
