// Products and their versions (docs/reference/http-api.md, HTTP API: /api/products, Releases, /api/changelog/preview).
import { ApiError, api, get, post } from "../api.ts";
import { type Listing, listing } from "../listing.ts";
import type {
  Arch,
  Artifact,
  Platform,
  Product,
  ProductAccess,
  ReleaseChange,
  Version,
  VersionFields,
} from "../wire.ts";

/**
 * The products the reader manages, by name; those whose name holds `search` when given. With their
 * counts (versions, latest, licenses, validations in 7 days) for the products table.
 */
export function listProducts(search: string): Promise<Listing<Product>> {
  const query = new URLSearchParams({ counts: "1" });
  if (search.trim()) query.set("search", search.trim());
  return listing(`/api/products?${query}`);
}

export async function readProduct(id: string): Promise<Product> {
  return (await get<{ data: Product }>(`/api/products/${encodeURIComponent(id)}`)).data;
}

/** What the reader may do with a product, as the server decides it (GET /api/products/{id}/access). */
export async function readAccess(id: string | number): Promise<ProductAccess> {
  return (await get<{ data: ProductAccess }>(`/api/products/${encodeURIComponent(id)}/access`)).data;
}

/**
 * A product the reader manages, with what they may do with it. Any other is "Product not found.",
 * as the API answers for a product one may not see: its pages offer nothing to anyone else.
 */
export async function readManagedProduct(id: string): Promise<{ product: Product; access: ProductAccess }> {
  const [product, access] = await Promise.all([readProduct(id), readAccess(id)]);
  if (!access.manage) throw new ApiError(404, "Product not found.");
  return { product, access };
}

/**
 * Refuses before a byte of a file goes up when the reader may not publish to the product: the page
 * may have been open since they lost the right (the server would refuse only the finished upload).
 */
export async function checkMayPublish(productId: number): Promise<void> {
  if (!(await readAccess(productId)).publish)
    throw new ApiError(403, "You may not publish versions of this product.");
}

/** The newest versions first. */
export const listVersions = (productId: number): Promise<Listing<Version>> =>
  listing(`/api/products/${productId}/versions`);

/** The file's path on this origin (the API's download_url is built on APP_URL, which may differ). */
export const downloadPath = (productId: number, version: Version) =>
  `/api/products/${productId}/versions/${version.id}/download`;

/** Releases a draft, yanks or restores a version, sets its rollout, channel or criticality. */
export async function changeRelease(
  productId: number,
  versionId: number,
  change: ReleaseChange,
): Promise<Version> {
  return (await api<{ data: Version }>("PATCH", `/api/products/${productId}/versions/${versionId}`, change))
    .data;
}

/** Adds a finished resumable upload to a version as its file for `platform`/`arch`. */
export async function addArtifact(
  productId: number,
  versionId: number,
  file: { upload_id: string; platform: Platform; arch: Arch },
): Promise<Artifact> {
  return (await post<{ data: Artifact }>(`/api/products/${productId}/versions/${versionId}/artifacts`, file))
    .data;
}

/** Marks a file for updaters only (left out of the download pages), or for people too. */
export async function markUpdatersOnly(
  productId: number,
  versionId: number,
  artifactId: number,
  updatersOnly: boolean,
): Promise<Artifact> {
  const path = `/api/products/${productId}/versions/${versionId}/artifacts/${artifactId}`;
  return (await api<{ data: Artifact }>("PATCH", path, { updaters_only: updatersOnly })).data;
}

export async function deleteArtifact(
  productId: number,
  versionId: number,
  artifactId: number,
): Promise<void> {
  await api("DELETE", `/api/products/${productId}/versions/${versionId}/artifacts/${artifactId}`);
}

export async function deleteVersion(productId: number, versionId: number): Promise<void> {
  await api("DELETE", `/api/products/${productId}/versions/${versionId}`);
}

/**
 * Publishes a finished resumable upload as a version (the JSON publish with `upload_id`) of the whole
 * product or of one benefit; without an upload the server's 422 says the file is required, beside
 * whatever else is missing. A benefit's 404 (removed meanwhile) comes back as an error of `benefit_id`,
 * to be shown beside the Benefit select.
 */
export async function publishVersion(
  productId: number,
  fields: VersionFields,
  uploadId: string | null,
  benefitId: number | null,
): Promise<Published> {
  const body = {
    ...fields,
    changelog_format: "markdown",
    ...(uploadId === null ? {} : { upload_id: uploadId }),
  };
  const published = (answer: PublishedAnswer): Published => ({
    version: answer.data,
    warnings: Object.values(answer.warnings ?? {}).flat(),
  });
  if (benefitId === null)
    return published(await post<PublishedAnswer>(`/api/products/${productId}/versions`, body));
  try {
    return published(
      await post<PublishedAnswer>(`/api/products/${productId}/benefits/${benefitId}/versions`, body),
    );
  } catch (failure) {
    if (failure instanceof ApiError && failure.status === 404)
      throw new ApiError(404, failure.message, { benefit_id: [failure.message] });
    throw failure;
  }
}

/** The publish answer: the version, and what the server warns of (a name no update feed offers). */
interface PublishedAnswer {
  data: Version;
  warnings?: Record<string, string[]>;
}

export interface Published {
  version: Version;
  warnings: string[];
}

/** A Markdown changelog as depot renders it: sanitised HTML, safe to insert. */
export async function previewChangelog(changelog: string): Promise<string> {
  const body = { changelog, changelog_format: "markdown" };
  return (await post<{ data: { html: string } }>("/api/changelog/preview", body)).data.html;
}
