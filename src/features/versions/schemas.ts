import type { TLiteral, TSchema, TUnion } from "@sinclair/typebox";
import { t } from "elysia";
import { ARCHES, PLATFORMS, RELEASE_CHANNELS, VERSION_STATUSES } from "../../db/schema/release-enums.ts";
import { PageQuery, simplePageOf } from "../../http/pagination.ts";
import { dataOf } from "../../http/schemas.ts";
import { QueryId } from "../../validation/ids.ts";
import { Int, Prose, Text } from "../../validation/schemas.ts";

/**
 * One of `values`, for input. Not `t.UnionEnum`: Elysia gives that a default (its first value) and
 * fills it into a body that left the field out, so an absent `status` would read as "draft".
 */
const OneOf = <const V extends string>(values: readonly V[]) =>
  t.Union(values.map((value) => t.Literal(value))) as unknown as TUnion<TLiteral<V>[]>;

const DateTime = t.String({ format: "date-time" });

/** One file of a version, for one platform and architecture. */
export const ArtifactJson = t.Object({
  id: Int(),
  version_id: Int(),
  platform: t.UnionEnum([...PLATFORMS]),
  arch: t.UnionEnum([...ARCHES]),
  file_name: t.String(),
  file_size: Int(),
  sha256: t.String({ pattern: "^[0-9a-f]{64}$" }),
  sha512: t.Union([t.String({ description: "base64, as electron-updater checks it" }), t.Null()], {
    description:
      "null only for a file stored before artifacts existed, until depot has read it once at start-up",
  }),
  content_type: t.String(),
  signature: t.Union([t.String(), t.Null()], { description: "the `.sig` text sent with the file" }),
  download_url: t.String(),
  created_at: DateTime,
});

/**
 * A version (note `product_id` is a string) with `changelog_format`, `file_size`, `sha256`, and
 * `downloads`, a count as a decimal string like the product's.
 */
export const VersionJson = t.Object({
  id: Int(),
  product_id: t.String(),
  option_id: t.Union([Int(), t.Null()]),
  purchase_benefit_id: t.Union([Int(), t.Null()]),
  benefit_name: t.Union([t.String(), t.Null()]),
  version_number: t.String(),
  title: t.String(),
  changelog: t.String(),
  changelog_format: t.UnionEnum(["markdown", "html"]),
  download_url: t.String(),
  file_name: t.String(),
  file_size: Int(),
  sha256: t.String({ pattern: "^[0-9a-f]{64}$" }),
  downloads: t.String({ pattern: "^\\d+$", description: "whole downloads of the file, as a decimal string" }),
  channel: t.UnionEnum([...RELEASE_CHANNELS]),
  status: t.UnionEnum([...VERSION_STATUSES]),
  critical: t.Boolean(),
  rollout_percentage: Int({ minimum: 0, maximum: 100 }),
  rollout_schedule: t.Union([t.Array(t.Object({ at: DateTime, percentage: Int() })), t.Null()], {
    description: "steps that raise the rollout from their time on; null: none",
  }),
  yank_reason: t.Union([t.String(), t.Null()]),
  published_at: t.Union([DateTime, t.Null()], { description: "null while a draft" }),
  artifacts: t.Array(ArtifactJson, {
    description: "its files; the first is the one `file_name` and `download_url` describe",
  }),
  created_at: DateTime,
  updated_at: DateTime,
});

export const VersionPageJson = simplePageOf(VersionJson);

export const VersionListQuery = t.Object({ ...PageQuery });
export const LatestQuery = t.Object({
  benefit: t.Optional(
    QueryId("benefit", "the latest version of this benefit; absent or empty: of the whole product"),
  ),
});

/** A flag as a form sends it (`1`, `true`, …) or as JSON does (a boolean). */
export const FormFlag = t.Union([t.Boolean(), OneOf(["0", "1", "true", "false"])]);
export const isSet = (flag: boolean | string | undefined) => flag === true || flag === "1" || flag === "true";

/** Where a file runs; `any` (the default) for a file every platform takes. */
export const PlatformField = OneOf(PLATFORMS);
export const ArchField = OneOf(ARCHES);
/** A `.sig` file's text: a minisign signature (Tauri) or a base64 Ed25519 signature (Sparkle). */
export const SignatureField = t.String({ minLength: 1, maxLength: 16_384 });
export const ChannelField = OneOf(RELEASE_CHANNELS);

/** What a file sent for a version says about itself: its platform, arch and signature. */
export const ArtifactFields = {
  platform: t.Optional(PlatformField),
  arch: t.Optional(ArchField),
  signature: t.Optional(SignatureField),
};

/**
 * A change to a version's release state (PATCH): publish a draft, yank (with a reason) or un-yank,
 * mark critical, move it to another channel, set its staged rollout.
 */
export const ReleaseChange = t.Object(
  {
    status: t.Optional(OneOf(VERSION_STATUSES)),
    yank_reason: t.Optional(t.Union([Prose({ minLength: 1, maxLength: 1000 }), t.Null()])),
    critical: t.Optional(t.Boolean()),
    channel: t.Optional(ChannelField),
    rollout_percentage: t.Optional(Int({ minimum: 0, maximum: 100 })),
    // Empty: no schedule.
    rollout_schedule: t.Optional(
      t.Array(
        t.Object(
          { at: DateTime, percentage: Int({ minimum: 0, maximum: 100 }) },
          { additionalProperties: false },
        ),
        { maxItems: 20 },
      ),
    ),
  },
  { additionalProperties: false },
);
export type ReleaseChange = typeof ReleaseChange.static;

/** The fields sent with a file added to a version (multipart, or JSON beside `file` or `upload_id`). */
export const ArtifactUploadFields = t.Object(ArtifactFields, { additionalProperties: false });

/**
 * The publish fields as they arrive: multipart fields are strings, so `benefit_id` may be digits, empty or
 * absent; in JSON it may also be an integer or null. `channel` defaults to the one the name implies
 * (semver.ts); `draft` creates the version unpublished (PATCH releases it).
 */
export const PublishFields = t.Object(
  {
    benefit_id: t.Optional(t.Union([t.String({ maxLength: 20 }), Int(), t.Null()])),
    version_name: Text({ minLength: 1, maxLength: 255 }),
    title: Text({ minLength: 1, maxLength: 255 }),
    changelog: Prose({ minLength: 1, maxLength: 1_000_000 }),
    changelog_format: t.Optional(t.UnionEnum(["markdown", "html"])),
    ...ArtifactFields,
    channel: t.Optional(ChannelField),
    draft: t.Optional(FormFlag),
  },
  { additionalProperties: false },
);
export type PublishFields = typeof PublishFields.static;

/** A changelog to render as depot shows it (the dashboard's publish preview and release notes). */
export const ChangelogPreview = t.Object(
  {
    changelog: Prose({ maxLength: PublishFields.properties.changelog.maxLength }),
    changelog_format: t.Optional(t.UnionEnum(["markdown", "html"])),
  },
  { additionalProperties: false },
);
export const ChangelogHtmlJson = dataOf(t.Object({ html: t.String() }));

/** The JSON form's file: base64 content, or a `data:` URI. */
export const Base64File = t.Object(
  {
    filename: t.String({ minLength: 1, maxLength: 255 }),
    content: t.String({ minLength: 1 }),
    content_type: t.Optional(t.String({ maxLength: 255 })),
  },
  { additionalProperties: false },
);

/** For the OpenAPI document only: the route reads its body itself (it streams). */
const PublishMultipartDoc = t.Object({
  ...PublishFields.properties,
  file: t.File({ description: "the release file" }),
});
const PublishJsonDoc = t.Object({ ...PublishFields.properties, file: Base64File });
const PublishFromUploadDoc = t.Object({
  ...PublishFields.properties,
  upload_id: t.String({ format: "uuid", description: "a finished resumable upload (POST /api/uploads)" }),
});

/** A TypeBox schema as the plain JSON Schema object an OpenAPI document holds. */
const plainSchema = (schema: TSchema) => JSON.parse(JSON.stringify(schema));

/**
 * The publish routes' and the add-a-file route's request bodies, for the document's `requestBody` only:
 * those routes read their bodies themselves (the file streams to the release store).
 */
export const PublishRequestBody = {
  content: {
    "multipart/form-data": { schema: plainSchema(PublishMultipartDoc) },
    "application/json": { schema: plainSchema(t.Union([PublishJsonDoc, PublishFromUploadDoc])) },
  },
};
export const ArtifactRequestBody = {
  content: {
    "multipart/form-data": {
      schema: plainSchema(t.Object({ ...ArtifactFields, file: t.File({ description: "the file" }) })),
    },
    "application/json": {
      schema: plainSchema(
        t.Union([
          t.Object({ ...ArtifactFields, file: Base64File }),
          t.Object({ ...ArtifactFields, upload_id: t.String({ format: "uuid" }) }),
        ]),
      ),
    },
  },
};
