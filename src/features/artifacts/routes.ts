import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { forms, input } from "../../http/forms.ts";
import { answers, dataOf, noContent } from "../../http/schemas.ts";
import { IdParam } from "../../validation/ids.ts";
import { bearerAuth } from "../auth/guards.ts";
import { ArtifactJson, toArtifactJson } from "./json.ts";
import { ArtifactRequestBody } from "./schemas.ts";
import { ArtifactChangeForm, addArtifactFrom, changeArtifact, deleteArtifact } from "./service.ts";

const VersionParams = t.Object({ product: IdParam("Product"), version: IdParam("Version") });
const ArtifactParams = t.Object({
  product: IdParam("Product"),
  version: IdParam("Version"),
  artifact: IdParam("Artifact"),
});

/** For the OpenAPI document only: the route reads its body itself (it streams). */
const ADD_DOC = {
  summary: "Add a file (one platform and arch) to a version",
  description:
    "multipart/form-data with `file`, `platform`, `arch`, `signature`? (the file streams to the release " +
    'store), or application/json with `"file": {"filename", "content", "content_type"?}` or `"upload_id"`. ' +
    "201 with the new artifact; 200 with the existing one when the same file is sent again. A file named " +
    "`X.blockmap` or `X.sig` is attached to the artifact `X` (its blockmap, its signature), which is returned.",
  requestBody: ArtifactRequestBody,
};
const added = { 200: dataOf(ArtifactJson), 201: dataOf(ArtifactJson) };

/** A version's files: adding, marking and deleting them (the publishers of its product). */
export const artifactRoutes = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/products/:product/versions/:version/artifacts", tags: ["Versions"] })
    .use(bearerAuth(ctx))
    .use(forms(ctx))
    .post(
      "",
      async ({ params, actor, request, status }) => {
        const { artifact, created, product } = await addArtifactFrom(ctx, actor, request, params);
        return status(created ? 201 : 200, { data: toArtifactJson(artifact, product.id, ctx.config.appUrl) });
      },
      {
        auth: true,
        params: VersionParams,
        ...answers(ADD_DOC, added, 400, 404, 413, 415, 422, 503, 507),
      },
    )
    .patch(
      "/:artifact",
      async ({ params, actor, body }) => {
        const { artifact, product } = await changeArtifact(ctx, actor, params, body);
        return { data: toArtifactJson(artifact, product.id, ctx.config.appUrl) };
      },
      {
        auth: true,
        params: ArtifactParams,
        ...answers(
          "Mark a file of a version for updaters only, or for people too (`updaters_only`)",
          { 200: dataOf(ArtifactJson) },
          404,
        ),
        ...input(ArtifactChangeForm),
      },
    )
    .delete("/:artifact", ({ params, actor }) => noContent(deleteArtifact(ctx, actor, params)), {
      auth: true,
      params: ArtifactParams,
      ...answers("Delete a file of a version, with its blockmap (never its last file: 422)", {}, 404, 422),
    });
