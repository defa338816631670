import { t } from "elysia";
import { ARCHES, PLATFORMS } from "../../db/schema/release-enums.ts";
import { plainSchema } from "../../http/schemas.ts";
import { FormFlag, OneOf } from "../../validation/schemas.ts";

/** Where a file runs; `any` (the default) for a file every platform takes. */
export const PlatformField = OneOf(PLATFORMS);
export const ArchField = OneOf(ARCHES);

/** A `.sig` file's text: a minisign signature (Tauri) or a base64 Ed25519 signature (Sparkle). */
export const SignatureField = t.String({ minLength: 1, maxLength: 16_384 });

/** What a file sent for a version says about itself: its platform, arch, signature, and who it is for. */
export const ArtifactFields = {
  platform: t.Optional(PlatformField),
  arch: t.Optional(ArchField),
  signature: t.Optional(SignatureField),
  /** For updaters only, left out of the download pages and links; absent: what the name says. */
  updaters_only: t.Optional(FormFlag),
};

/** The fields sent with a file added to a version (multipart, or JSON beside `file` or `upload_id`). */
export const ArtifactUploadFields = t.Object(ArtifactFields, { additionalProperties: false });

/** The JSON form's file: base64 content, or a `data:` URI. */
export const Base64File = t.Object(
  {
    filename: t.String({ minLength: 1, maxLength: 255 }),
    content: t.String({ minLength: 1 }),
    content_type: t.Optional(t.String({ maxLength: 255 })),
  },
  { additionalProperties: false },
);

/**
 * The add-a-file route's request body, for the document's `requestBody` only: the route reads its body
 * itself (the file streams to the release store).
 */
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

/** A change to a file already added: who it is for (the name's guess, or what the upload said, corrected). */
export const ArtifactChangeBody = t.Object(
  {
    updaters_only: t.Boolean({
      description:
        "true: for updaters only, offered by the feeds but left out of the download pages and the version's " +
        "download; false: for people too",
    }),
  },
  { additionalProperties: false },
);
export type ArtifactChange = typeof ArtifactChangeBody.static;
