import { expect } from "bun:test";
import type { Arch, Platform, ReleaseChannel } from "../../src/db/schema/index.ts";

/**
 * Releases with several files, as the update feeds read them, published as a CI pipeline does it:
 * through the HTTP API (the publish, each further file, blockmap and signature as an artifact, PATCH
 * for the release fields).
 */

export interface ReleaseFile {
  name: string;
  bytes: Uint8Array;
  platform: Platform;
  arch: Arch;
  /** The `.sig` text (minisign for Tauri, base64 Ed25519 for Sparkle). */
  signature?: string;
  /** electron-builder's `.blockmap` of the file, kept with it. */
  blockmap?: Uint8Array;
}

export interface Release {
  name: string;
  files: ReleaseFile[];
  /** Default: the channel the name implies. */
  channel?: ReleaseChannel;
  changelog?: string;
  changelogFormat?: "markdown" | "html";
  status?: "draft" | "published" | "yanked";
  critical?: boolean;
  rolloutPercentage?: number;
}

/** The `Authorization` header updaters send. */
export const license = (key: string) => ({ authorization: `License ${key}` });

/** The fields a file is sent with (multipart), for the publish and for each further artifact. */
function fileForm(
  file: Pick<ReleaseFile, "platform" | "arch" | "signature">,
  name: string,
  bytes: Uint8Array,
) {
  const form = new FormData();
  form.append("file", new File([bytes], name, { type: "application/octet-stream" }));
  form.append("platform", file.platform);
  form.append("arch", file.arch);
  if (file.signature !== undefined) form.append("signature", file.signature);
  return form;
}

async function sent(response: Promise<Response>, status: number) {
  const answer = await response;
  const text = await answer.text();
  expect({ status: answer.status, text: answer.status === status ? "" : text }).toEqual({ status, text: "" });
  return JSON.parse(text).data;
}

/**
 * Publishes `release` through the API as a pipeline does: the version with its first file, then every
 * other file, each file's `.blockmap` (which depot keeps with the file), and the release fields by
 * PATCH. Returns the Version JSON after the last step.
 */
export async function publishRelease(base: string, token: string, productId: number, release: Release) {
  const [first] = release.files;
  if (!first) throw new Error("a release has a file");
  const auth = { authorization: `Bearer ${token}` };
  const form = fileForm(first, first.name, first.bytes);
  form.append("version_name", release.name);
  form.append("title", `Release ${release.name}`);
  form.append("changelog", release.changelog ?? `Changes in ${release.name}.`);
  if (release.changelogFormat) form.append("changelog_format", release.changelogFormat);
  if (release.channel) form.append("channel", release.channel);
  if (release.status === "draft") form.append("draft", "true");
  let version = await sent(
    fetch(`${base}/api/products/${productId}/versions`, { method: "POST", headers: auth, body: form }),
    201,
  );
  const add = (body: FormData) =>
    sent(
      fetch(`${base}/api/products/${productId}/versions/${version.id}/artifacts`, {
        method: "POST",
        headers: auth,
        body,
      }),
      201,
    );
  for (const file of release.files) {
    if (file !== first) await add(fileForm(file, file.name, file.bytes));
    if (file.blockmap)
      await add(fileForm({ ...file, signature: undefined }, `${file.name}.blockmap`, file.blockmap));
  }
  const changes = {
    ...(release.status === "yanked" ? { status: "yanked", yank_reason: "yanked" } : {}),
    ...(release.critical !== undefined ? { critical: release.critical } : {}),
    ...(release.rolloutPercentage !== undefined ? { rollout_percentage: release.rolloutPercentage } : {}),
  };
  if (Object.keys(changes).length > 0)
    version = await patchRelease(base, token, productId, version.id, changes);
  return version;
}

/** PATCH a version's release fields as a vendor does (status, yank_reason, critical, channel, rollout_percentage). */
export function patchRelease(
  base: string,
  token: string,
  productId: number,
  versionId: number,
  changes: Record<string, unknown>,
) {
  return sent(
    fetch(`${base}/api/products/${productId}/versions/${versionId}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(changes),
    }),
    200,
  );
}
