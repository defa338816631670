import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { requestState } from "../../http/request-state.ts";
import { answers } from "../../http/schemas.ts";
import { IdParam } from "../../validation/ids.ts";
import { bearerAuth } from "../auth/guards.ts";
import type { DownloadRequest } from "../downloads/serve.ts";
import { answerFeedFile, openFeed } from "./access.ts";
import { electronFeed, inFormat, sparkleFeed, squirrelFeed, tauriFeed, updateOrNothing } from "./feeds.ts";
import { FeedQuery, NothingNewer, SquirrelUpdateJson, TauriUpdateJson } from "./json.ts";

const LICENSE =
  " Send `Authorization: License <key>`: the license must make its owner a holder of the product " +
  "(a product with `free` set needs none). No key: 401; a key that is not a holder's: 403. " +
  "A staged rollout knows the client by `x-user-staging-id`, else the license, else its address.";

/** A feed in the document: the license rules every feed shares, and their refusals. */
const feedAnswers = <R extends Parameters<typeof answers>[1], S extends 422 = never>(
  summary: string,
  description: string,
  success: R,
  ...statuses: S[]
) => {
  const detail = { summary, description: description + LICENSE };
  return answers<R, 401 | 403 | 404 | S>(detail, success, 401, 403, 404, ...statuses);
};

const ProductParams = { product: IdParam("Product") };
const FileParams = t.Object({
  ...ProductParams,
  version: t.String({ description: "the version's name" }),
  file: t.String({ description: "the artifact's file name, or that name + `.blockmap`" }),
});
const FILE_DOC = {
  description:
    "The artifact `file` of the version named `version` (the whole product's), or with `.blockmap` the " +
    "blockmap kept with it. `Authorization: License <key>` of a holder, a holder's bearer token or " +
    "session, or a signed URL; a free product's files need none. Strong ETag, If-None-Match → 304, " +
    "byte ranges → 206, as every download.",
};
const fileAnswers = (summary: string) => answers({ summary, ...FILE_DOC }, {}, 401, 403, 404, 410);
const ElectronParams = t.Object({
  ...ProductParams,
  file: t.String({ description: "e.g. latest.yml, beta-mac.yml" }),
});
const YAML = "application/yaml";
const UpdateCheckParams = { arch: t.String(), current_version: t.String() };
const TauriParams = t.Object({ ...ProductParams, target: t.String(), ...UpdateCheckParams });
const SquirrelParams = t.Object({ ...ProductParams, ...UpdateCheckParams });

/**
 * The feeds updaters read, at /updates/{product}/…: electron-updater's `generic` provider, Tauri v2,
 * Sparkle 2 and Squirrel.Mac, each in its own format. No guard macro: the credential is the license
 * key in the Authorization header, checked by access.ts (openFeed) before anything else is read.
 */
export const updateRoutes = (ctx: AppContext) => {
  const open = (request: Request, productId: number) => openFeed(ctx, request, productId);
  /** GET and HEAD of a file: the download rules, with the license in the Authorization header too. */
  const file = ({ params, request, bearer, set }: DownloadRequest & { params: typeof FileParams.static }) =>
    answerFeedFile(ctx, params, { request, bearer, set });

  return new Elysia({ prefix: "/updates/:product", tags: ["Update feeds"] })
    .use(bearerAuth(ctx))
    .get("/files/:version/:file", file, { params: FileParams, ...fileAnswers("A file an update feed names") })
    .head("/files/:version/:file", file, { params: FileParams, ...fileAnswers("A feed file's headers") })
    .get(
      "/electron/:file",
      async ({ params, request, set }) =>
        inFormat(set, YAML, electronFeed(ctx, await open(request, params.product), params.file)),
      {
        params: ElectronParams,
        ...feedAnswers(
          "electron-updater's update info file (generic provider)",
          "`{channel}{suffix}.yml`: channel `latest` (stable), `rc`, `beta`, `alpha` or `dev`; suffix `` " +
            "(Windows), `-mac`, `-linux` (x86_64), `-linux-arm64`, `-linux-armv7l`. As electron-builder " +
            "writes it (version, files [{url, sha512, size}], path, sha512, releaseDate, releaseNotes). " +
            "Nothing offered for that channel and platform, or an unknown file name: 404.",
          { 200: t.String({ description: "YAML" }) },
        ),
      },
    )
    .get(
      "/tauri/:target/:arch/:current_version",
      async ({ params, query, request, set }) =>
        updateOrNothing(set, tauriFeed(ctx, await open(request, params.product), params, query.channel)),
      {
        params: TauriParams,
        query: FeedQuery,
        ...feedAnswers(
          "Tauri v2's update check",
          "Tauri's `{{target}}` (linux, darwin, windows, optionally `-<bundle>`: `windows-nsis`), " +
            "`{{arch}}` (x86_64, aarch64, i686, armv7) and `{{current_version}}` (semver, else 422). " +
            "204 when nothing newer is offered. `?channel=` picks the channel (default stable).",
          { 200: TauriUpdateJson, 204: NothingNewer },
          422,
        ),
      },
    )
    .get(
      "/squirrel/darwin/:arch/:current_version",
      async ({ params, query, request, set }) =>
        updateOrNothing(set, squirrelFeed(ctx, await open(request, params.product), params, query.channel)),
      {
        params: SquirrelParams,
        query: FeedQuery,
        ...feedAnswers(
          "Squirrel.Mac's update check (Electron's built-in autoUpdater on macOS)",
          "`{arch}`: x86_64, aarch64, universal (or Electron's x64, arm64). 204 when nothing newer is " +
            "offered, else `{url, name, notes, pub_date}` with the version's zip. `?channel=` as for Tauri.",
          { 200: SquirrelUpdateJson, 204: NothingNewer },
          422,
        ),
      },
    )
    .get(
      "/sparkle/appcast.xml",
      async ({ params, request, set }) => {
        const feed = sparkleFeed(ctx, await open(request, params.product), requestState(request).url.href);
        return inFormat(set, "application/rss+xml; charset=utf-8", feed);
      },
      {
        params: t.Object(ProductParams),
        ...feedAnswers(
          "Sparkle 2's appcast",
          "One item per offered macOS version, newest first, every channel (non-stable items carry " +
            "`sparkle:channel`), `sparkle:criticalUpdate` when critical, and an enclosure with the " +
            "stored `sparkle:edSignature`.",
          { 200: t.String({ description: "RSS 2.0 with Sparkle's namespace" }) },
        ),
      },
    );
};
