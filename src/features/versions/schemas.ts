import { t } from "elysia";
import { RELEASE_CHANNELS, VERSION_STATUSES } from "../../db/schema/release-enums.ts";
import { PageQuery } from "../../http/pagination.ts";
import { plainSchema } from "../../http/schemas.ts";
import { QueryId } from "../../validation/ids.ts";
import { FormFlag, Int, OneOf, Prose, Text } from "../../validation/schemas.ts";
import { ArtifactFields, Base64File } from "../artifacts/schemas.ts";

const DateTime = t.String({ format: "date-time" });

export const VersionListQuery = t.Object({ ...PageQuery });
export const LatestQuery = t.Object({
  benefit: t.Optional(
    QueryId("benefit", "the latest version of this benefit; absent or empty: of the whole product"),
  ),
});

export const ChannelField = OneOf(RELEASE_CHANNELS);

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

/**
 * The publish routes' request bodies, for the document's `requestBody` only: those routes read their
 * bodies themselves (the file streams to the release store).
 */
export const PublishRequestBody = {
  content: {
    "multipart/form-data": { schema: plainSchema(PublishMultipartDoc) },
    "application/json": { schema: plainSchema(t.Union([PublishJsonDoc, PublishFromUploadDoc])) },
  },
};
