import { expect } from "bun:test";
import { bearer, readJson } from "./app.ts";

/**
 * Releases as a CI pipeline publishes them for the update feeds: the version with its first file
 * (multipart, with platform and arch), then each further file, blockmap and signature as an artifact
 * of the same version, then (for a draft) the release. All through the HTTP API.
 */

export interface ReleaseFile {
  name: string;
  bytes: Uint8Array;
  platform: string;
  arch: string;
  /** The `.sig` text (minisign for Tauri, base64 Ed25519 for Sparkle). */
  signature?: string;
  /** electron-builder's `.blockmap` of the file, sent as the artifact `{name}.blockmap`. */
  blockmap?: Uint8Array;
}

export interface Release {
  name: string;
  files: ReleaseFile[];
  channel?: string;
  changelog?: string;
  draft?: boolean;
}

function fileForm(file: ReleaseFile): FormData {
  const form = new FormData();
  form.append("file", new File([file.bytes], file.name, { type: "application/octet-stream" }));
  form.append("platform", file.platform);
  form.append("arch", file.arch);
  if (file.signature !== undefined) form.append("signature", file.signature);
  return form;
}

async function addArtifact(
  base: string,
  token: string,
  productId: number,
  versionId: number,
  form: FormData,
) {
  const response = await fetch(`${base}/api/products/${productId}/versions/${versionId}/artifacts`, {
    method: "POST",
    headers: bearer(token),
    body: form,
  });
  if (response.status !== 201)
    throw new Error(`artifact answered ${response.status}: ${await response.text()}`);
}

/** Publishes `release`; returns the Version JSON as the publish answered it. */
export async function publishRelease(base: string, token: string, productId: number, release: Release) {
  const [first, ...rest] = release.files;
  if (!first) throw new Error("a release has a file");
  const form = fileForm(first);
  form.append("version_name", release.name);
  form.append("title", `Release ${release.name}`);
  form.append("changelog", release.changelog ?? `Changes in ${release.name}.`);
  if (release.channel) form.append("channel", release.channel);
  if (release.draft) form.append("draft", "true");
  const response = await fetch(`${base}/api/products/${productId}/versions`, {
    method: "POST",
    headers: bearer(token),
    body: form,
  });
  if (response.status !== 201)
    throw new Error(`publish answered ${response.status}: ${await response.text()}`);
  const version = (await readJson(response)).data;
  const blockmapOf = (file: ReleaseFile) => {
    const blockmap = new FormData();
    blockmap.append("file", new File([file.blockmap as Uint8Array], `${file.name}.blockmap`));
    blockmap.append("platform", file.platform);
    blockmap.append("arch", file.arch);
    return blockmap;
  };
  if (first.blockmap) await addArtifact(base, token, productId, version.id, blockmapOf(first));
  for (const file of rest) {
    await addArtifact(base, token, productId, version.id, fileForm(file));
    if (file.blockmap) await addArtifact(base, token, productId, version.id, blockmapOf(file));
  }
  return version;
}

/** PATCH a version's release fields (status, rollout_percentage, critical, channel, yank_reason). */
export async function patchVersion(
  base: string,
  token: string,
  productId: number,
  versionId: number,
  fields: Record<string, unknown>,
) {
  const response = await fetch(`${base}/api/products/${productId}/versions/${versionId}`, {
    method: "PATCH",
    headers: { ...bearer(token), "content-type": "application/json" },
    body: JSON.stringify(fields),
  });
  expect({ status: response.status, body: response.status === 200 ? "" : await response.text() }).toEqual({
    status: 200,
    body: "",
  });
  return (await readJson(response)).data;
}

/** The `Authorization` header updaters send. */
export const license = (key: string) => ({ authorization: `License ${key}` });
