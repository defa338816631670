import { bearer, readJson } from "./app.ts";

/**
 * Publishes a version (of the whole product, or with `benefitId` of that benefit) through a listening
 * server, as a pipeline does (multipart); returns the response.
 */
export function publishMultipart(
  base: string,
  token: string,
  productId: number,
  version: { name: string; bytes: string | Uint8Array; fileName?: string; benefitId?: number },
): Promise<Response> {
  const form = new FormData();
  form.append("version_name", version.name);
  form.append("title", "t");
  form.append("changelog", "c");
  form.append("file", new File([version.bytes], version.fileName ?? "release.bin"));
  const benefit = version.benefitId === undefined ? "" : `/benefits/${version.benefitId}`;
  return fetch(`${base}/api/products/${productId}${benefit}/versions`, {
    method: "POST",
    headers: bearer(token),
    body: form,
  });
}

/** The published Version's JSON (the publish must succeed). */
export async function publishedVersion(...args: Parameters<typeof publishMultipart>) {
  const response = await publishMultipart(...args);
  if (response.status !== 201)
    throw new Error(`publish answered ${response.status}: ${await response.text()}`);
  return (await readJson(response)).data;
}
