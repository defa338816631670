import type { TSchema } from "@sinclair/typebox";
import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { dataOf, refusals } from "../../http/schemas.ts";
import { newStorageKey } from "../../storage/storage.ts";
import { IdParam } from "../../validation/ids.ts";
import { bearerAuth } from "../auth/guards.ts";
import { addArtifact, artifactTarget, deleteArtifact } from "./artifacts.ts";
import { toArtifactJson } from "./json.ts";
import { ArtifactFields, ArtifactJson, Base64File } from "./schemas.ts";
import { readUpload } from "./upload.ts";

const plainSchema = (schema: TSchema) => JSON.parse(JSON.stringify(schema));
const tags = ["Versions"];
const VersionParams = t.Object({ product: IdParam("Product"), version: IdParam("Version") });
const ArtifactParams = t.Object({
  product: IdParam("Product"),
  version: IdParam("Version"),
  artifact: IdParam("Artifact"),
});

/** For the OpenAPI document only: the route reads its body itself (it streams). */
const addDoc = {
  tags,
  summary: "Add a file (one platform and arch) to a version",
  description:
    "multipart/form-data with `file`, `platform`, `arch`, `signature`? (the file streams to the release " +
    'store), or application/json with `"file": {"filename", "content", "content_type"?}` or `"upload_id"`. ' +
    "201 with the new artifact; 200 with the existing one when the same file is sent again. A file named " +
    "`X.blockmap` or `X.sig` is attached to the artifact `X` (its blockmap, its signature), which is returned.",
  requestBody: {
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
  },
};

/** A version's files: adding and deleting them (the publishers of its product). */
export const artifactRoutes = (ctx: AppContext) =>
  new Elysia()
    .use(bearerAuth(ctx))
    .post(
      "/api/products/:product/versions/:version/artifacts",
      async ({ params, actor, request, status }) => {
        // Checked before a byte of the body is read, as publishing does.
        const target = await artifactTarget(ctx, actor, params.product, params.version);
        const upload = await readUpload(request, ctx.releases, ctx.config, newStorageKey(target.product.id));
        const { artifact, created } = await addArtifact(ctx, actor, target, upload);
        if (created) ctx.metrics?.upload(artifact.fileSize);
        return status(created ? 201 : 200, {
          data: toArtifactJson(artifact, target.product.id, ctx.config.appUrl),
        });
      },
      {
        auth: true,
        params: VersionParams,
        response: {
          200: dataOf(ArtifactJson),
          201: dataOf(ArtifactJson),
          ...refusals(400, 404, 413, 415, 422, 503, 507),
        },
        detail: addDoc,
      },
    )
    .delete(
      "/api/products/:product/versions/:version/artifacts/:artifact",
      async ({ params, actor, set }) => {
        await deleteArtifact(ctx, actor, params);
        set.status = 204;
      },
      {
        auth: true,
        params: ArtifactParams,
        response: refusals(404, 422),
        detail: {
          summary: "Delete a file of a version, with its blockmap (never its last file: 422)",
          tags,
        },
      },
    );
