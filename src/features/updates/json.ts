import { t } from "elysia";
import { VersionJson } from "../versions/json.ts";

/** Every wire shape of the update feeds that is JSON (electron's and Sparkle's are YAML and XML). */

/** Tauri v2's dynamic update server answer (tauri.app, Updater plugin). */
export const TauriUpdateJson = t.Object({
  version: t.String({ description: "the version name, without a leading `v`" }),
  notes: t.String({ description: "the changelog as published" }),
  pub_date: t.String({ format: "date-time" }),
  url: t.String({
    description: "{APP_URL}/updates/{p}/files/{version}/{file}; send the same License header",
  }),
  signature: t.String({ description: "the artifact's `.sig` text as `tauri signer sign` wrote it" }),
});
export type TauriUpdateJson = typeof TauriUpdateJson.static;

/**
 * A 204's (empty) body, the Tauri and Squirrel checks' answer when nothing newer is offered. Not
 * `t.Void()`: the OpenAPI plugin writes a void response as a content type named "type", which makes
 * the whole document invalid.
 */
export const NothingNewer = t.String({ maxLength: 0, description: "nothing newer is offered: no body" });

/** Squirrel.Mac's update JSON (what Electron's autoUpdater reads on macOS). */
export const SquirrelUpdateJson = t.Object({
  url: t.String({ description: "the zip Squirrel installs from" }),
  name: t.String({ description: "the version name" }),
  notes: t.String(),
  pub_date: t.String({ format: "date-time" }),
});
export type SquirrelUpdateJson = typeof SquirrelUpdateJson.static;

/**
 * depot's own signed upgrade answer. It names what it answers for (product, platform, arch,
 * channel), so a relaying server cannot replay one product's or platform's signed "no upgrade" as
 * another's: a client checks them as it checks a validation's license key.
 */
export const UpgradeJson = t.Object({
  upgrade: t.Boolean({ description: "whether `version` is newer than the client's and offered to it" }),
  current: t.String({ description: "the client's version, as sent" }),
  product_id: t.String({ description: "the product asked about; a client checks it is its own" }),
  platform: t.String({ description: "the platform asked about (`any` when none was given)" }),
  arch: t.String({ description: "the arch asked about (`any` when none was given)" }),
  channel: t.String({ description: "the channel asked about (`stable` when none was given)" }),
  nonce: t.Union([t.String(), t.Null()], { description: "the request's nonce, echoed" }),
  version: t.Union([VersionJson, t.Null()], {
    description:
      "the version to upgrade to (its artifacts narrowed to the platform and arch); null when none",
  }),
});
export type UpgradeJson = typeof UpgradeJson.static;

export const UpgradeQuery = t.Object({
  version: t.String({ maxLength: 256, description: "the client's version (semver)" }),
  platform: t.Optional(t.String({ maxLength: 32, description: "windows, darwin, linux or any (default)" })),
  arch: t.Optional(
    t.String({ maxLength: 32, description: "x86_64, aarch64, i686, armv7, universal or any" }),
  ),
  channel: t.Optional(t.String({ maxLength: 32, description: "stable (default), rc, beta, alpha or dev" })),
  nonce: t.Optional(t.String({ maxLength: 200, description: "echoed in the signed answer" })),
});
export type UpgradeQuery = typeof UpgradeQuery.static;

export const FeedQuery = t.Object({
  channel: t.Optional(t.String({ maxLength: 32, description: "stable (default), rc, beta, alpha or dev" })),
});
