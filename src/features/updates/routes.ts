import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { requestState } from "../../http/request-state.ts";
import { refusals } from "../../http/schemas.ts";
import { IdParam } from "../../validation/ids.ts";
import { bearerAuth, headerBearer, sessionActor } from "../auth/guards.ts";
import { serveDownload } from "../versions/serve-download.ts";
import { licenseOf, openFeed } from "./access.ts";
import { electronFeed, sparkleFeed, squirrelFeed, tauriFeed } from "./feeds.ts";
import { FeedQuery, SquirrelUpdateJson, TauriUpdateJson } from "./json.ts";

const tags = ["Update feeds"];
const LICENSE =
  " Send `Authorization: License <key>`: the license must make its owner a holder of the product " +
  "(a product with `free` set needs none). No key: 401; a key that is not a holder's: 403. " +
  "A staged rollout knows the client by `x-user-staging-id`, else the license, else its address.";
const feedRefusals = refusals(401, 403, 404, 422);
/** Answers depend on who asks (the license, the rollout's cohort): no cache keeps them. */
const NO_STORE = "no-store";
/**
 * A 204's (empty) body. Not `t.Void()`: the OpenAPI plugin writes a void response as a content type
 * named "type", which makes the whole document invalid.
 */
const NothingNewer = t.String({ maxLength: 0, description: "nothing newer is offered: no body" });

const ProductParams = { product: IdParam("Product") };
const FILE = "/updates/:product/files/:version/:file";
const FileParams = t.Object({
  ...ProductParams,
  version: t.String({ description: "the version's name" }),
  file: t.String({ description: "the artifact's file name, or that name + `.blockmap`" }),
});
const fileDoc = {
  tags,
  summary: "A file an update feed names",
  description:
    "The artifact `file` of the version named `version` (the whole product's), or with `.blockmap` the " +
    "blockmap kept with it. `Authorization: License <key>` of a holder, a holder's bearer token or " +
    "session, or a signed URL; a free product's files need none. Strong ETag, If-None-Match → 304, " +
    "byte ranges → 206, as every download.",
};

interface FileContext {
  params: { product: number; version: string; file: string };
  request: Request;
  bearer: string | undefined;
  set: { headers: Record<string, string | number> };
}

/**
 * The feeds updaters read, at /updates/{product}/…: electron-updater's `generic` provider, Tauri v2,
 * Sparkle 2 and Squirrel.Mac, each in its own format. No guard macro: the credential is the license
 * key in the Authorization header, checked by access.ts before anything else is read.
 */
export const updateRoutes = (ctx: AppContext) => {
  const open = (request: Request, productId: number) => openFeed(ctx, request, productId);

  /** GET and HEAD of a file: the download rules, with the license in the Authorization header too. */
  const file = async ({ params, request, bearer, set }: FileContext) => {
    const ids = {
      product: params.product,
      version: { name: params.version },
      artifact: { name: params.file },
    };
    const { response, userId } = await serveDownload(ctx, request, ids, {
      url: requestState(request).url,
      bearer: headerBearer(request, bearer),
      licenseKey: licenseOf(request) ?? request.headers.get("x-license-key"),
      // An Authorization header, even one that is not Bearer, decides on its own (features/auth/guards.ts).
      session: async () => (request.headers.has("authorization") ? null : sessionActor(ctx, request, set)),
      openWhenFree: true,
    });
    if (userId !== null) requestState(request).who.user_id = userId;
    return response;
  };

  return new Elysia()
    .use(bearerAuth(ctx))
    .get(FILE, file, { params: FileParams, response: refusals(401, 403, 404, 410), detail: fileDoc })
    .head(FILE, file, {
      params: FileParams,
      response: refusals(401, 403, 404, 410),
      detail: { ...fileDoc, summary: "A feed file's headers" },
    })
    .get(
      "/updates/:product/electron/:file",
      async ({ params, request, set }) => {
        const { access, cohort } = await open(request, params.product);
        const yml = await electronFeed(ctx, access, params.file, cohort);
        set.headers["content-type"] = "application/yaml";
        set.headers["cache-control"] = NO_STORE;
        return yml;
      },
      {
        params: t.Object({
          ...ProductParams,
          file: t.String({ description: "e.g. latest.yml, beta-mac.yml" }),
        }),
        response: { 200: t.String({ description: "YAML" }), ...refusals(401, 403, 404) },
        detail: {
          summary: "electron-updater's update info file (generic provider)",
          description:
            "`{channel}{suffix}.yml`: channel `latest` (stable), `rc`, `beta`, `alpha` or `dev`; suffix `` " +
            "(Windows), `-mac`, `-linux` (x86_64), `-linux-arm64`, `-linux-armv7l`. As electron-builder " +
            "writes it (version, files [{url, sha512, size}], path, sha512, releaseDate, releaseNotes). " +
            "Nothing offered for that channel and platform, or an unknown file name: 404." +
            LICENSE,
          tags,
        },
      },
    )
    .get(
      "/updates/:product/tauri/:target/:arch/:current_version",
      async ({ params, query, request, set }) => {
        const { access, cohort } = await open(request, params.product);
        const update = await tauriFeed(ctx, access, cohort, { ...params, channel: query.channel });
        set.headers["cache-control"] = NO_STORE;
        if (update === null) set.status = 204;
        return update ?? "";
      },
      {
        params: t.Object({
          ...ProductParams,
          target: t.String(),
          arch: t.String(),
          current_version: t.String(),
        }),
        query: FeedQuery,
        response: { 200: TauriUpdateJson, 204: NothingNewer, ...feedRefusals },
        detail: {
          summary: "Tauri v2's update check",
          description:
            "Tauri's `{{target}}` (linux, darwin, windows, optionally `-<bundle>`: `windows-nsis`), " +
            "`{{arch}}` (x86_64, aarch64, i686, armv7) and `{{current_version}}` (semver, else 422). " +
            "204 when nothing newer is offered. `?channel=` picks the channel (default stable)." +
            LICENSE,
          tags,
        },
      },
    )
    .get(
      "/updates/:product/squirrel/darwin/:arch/:current_version",
      async ({ params, query, request, set }) => {
        const { access, cohort } = await open(request, params.product);
        const update = await squirrelFeed(ctx, access, cohort, { ...params, channel: query.channel });
        set.headers["cache-control"] = NO_STORE;
        if (update === null) set.status = 204;
        return update ?? "";
      },
      {
        params: t.Object({ ...ProductParams, arch: t.String(), current_version: t.String() }),
        query: FeedQuery,
        response: { 200: SquirrelUpdateJson, 204: NothingNewer, ...feedRefusals },
        detail: {
          summary: "Squirrel.Mac's update check (Electron's built-in autoUpdater on macOS)",
          description:
            "`{arch}`: x86_64, aarch64, universal (or Electron's x64, arm64). 204 when nothing newer is " +
            "offered, else `{url, name, notes, pub_date}` with the version's zip. `?channel=` as for Tauri." +
            LICENSE,
          tags,
        },
      },
    )
    .get(
      "/updates/:product/sparkle/appcast.xml",
      async ({ params, request, set }) => {
        const { access, cohort } = await open(request, params.product);
        const xml = await sparkleFeed(ctx, access, cohort, requestState(request).url.href);
        set.headers["content-type"] = "application/rss+xml; charset=utf-8";
        set.headers["cache-control"] = NO_STORE;
        return xml;
      },
      {
        params: t.Object(ProductParams),
        response: {
          200: t.String({ description: "RSS 2.0 with Sparkle's namespace" }),
          ...refusals(401, 403, 404),
        },
        detail: {
          summary: "Sparkle 2's appcast",
          description:
            "One item per offered macOS version, newest first, every channel (non-stable items carry " +
            "`sparkle:channel`), `sparkle:criticalUpdate` when critical, and an enclosure with the " +
            "stored `sparkle:edSignature`." +
            LICENSE,
          tags,
        },
      },
    );
};
