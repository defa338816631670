import type { ArtifactJson } from "../features/artifacts/json.ts";
import type { ReleaseChange as ReleaseChangeSchema } from "../features/versions/schemas.ts";
import { type DepotClient, readJson } from "./depot-client.ts";
import type { Version } from "./versions.ts";

/** A file of a version as the API sends it. */
export type Artifact = (typeof ArtifactJson)["static"];

/** What a file is published or added with, besides its finished resumable upload. */
export interface FileFields {
  upload_id: string;
  platform: string;
  arch: string;
  /** The text of its `.sig` (Tauri, minisign), when one was given. */
  signature?: string;
}

const JSON_HEADERS = { "content-type": "application/json", accept: "application/json" };

const versionsPath = (productId: number, benefitId: number | null) =>
  benefitId === null
    ? `/api/products/${productId}/versions`
    : `/api/products/${productId}/benefits/${benefitId}/versions`;

/**
 * Publishes a version from a finished upload (201; 200 when that name already has that file, so a
 * retry after a lost answer is the same version), with the answer's warnings (a name that is not semver).
 */
export function publishVersion(
  client: DepotClient,
  productId: number,
  benefitId: number | null,
  body: Record<string, unknown>,
): Promise<{ status: number; version: Version; warnings: string[] }> {
  return client.request(
    versionsPath(productId, benefitId),
    { method: "POST", headers: JSON_HEADERS, body: JSON.stringify(body) },
    {
      read: async (response) => {
        const answer = await readJson<{ data: Version; warnings?: Record<string, string[]> }>(response);
        return {
          status: response.status,
          version: answer.data,
          warnings: Object.values(answer.warnings ?? {}).flat(),
        };
      },
    },
  );
}

/**
 * Adds a file to a version (`POST …/versions/{v}/artifacts`): 201, or 200 when the version already
 * has this very file for that platform and architecture, so retrying is safe.
 */
export function addArtifact(
  client: DepotClient,
  productId: number,
  versionId: number,
  fields: FileFields,
): Promise<{ status: number; artifact: Artifact }> {
  return client.request(
    `/api/products/${productId}/versions/${versionId}/artifacts`,
    { method: "POST", headers: JSON_HEADERS, body: JSON.stringify(fields) },
    {
      read: async (response) => ({
        status: response.status,
        artifact: (await readJson<{ data: Artifact }>(response)).data,
      }),
    },
  );
}

/** A change to a version's release state, as `PATCH …/versions/{v}` takes it (the server's own schema). */
export type ReleaseChange = (typeof ReleaseChangeSchema)["static"];

/**
 * Changes a version's release state (`PATCH …/versions/{v}`): release a draft (`status: "published"`),
 * yank or un-yank, mark critical, set the rollout. The same request again changes nothing.
 */
export function changeRelease(
  client: DepotClient,
  productId: number,
  versionId: number,
  change: ReleaseChange,
): Promise<Version> {
  return client.request(
    `/api/products/${productId}/versions/${versionId}`,
    { method: "PATCH", headers: JSON_HEADERS, body: JSON.stringify(change) },
    { read: async (response) => (await readJson<{ data: Version }>(response)).data },
  );
}
