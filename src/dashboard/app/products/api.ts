// Products and their versions (README, HTTP API: /api/products, Releases, /api/changelog/preview).
import { ApiError, api, get, post } from "../api.ts";
import { type Listing, listing } from "../listing.ts";

/** The fields of depot's Product JSON the dashboard shows; flags and counts are strings there. */
export interface Product {
  id: number;
  name: string;
  slug: string;
  description: string;
  hidden: "0" | "1";
  disabled: "0" | "1";
  deleted_at: string | null;
  downloads: string;
  purchases: string;
}

export interface Version {
  id: number;
  version_number: string;
  title: string;
  benefit_name: string | null;
  file_name: string;
  file_size: number;
  /** A count as a decimal string. */
  downloads: string;
  created_at: string;
}

/** The products the reader manages, by name; those whose name holds `search` when given. */
export function listProducts(search: string): Promise<Listing<Product>> {
  const query = new URLSearchParams();
  if (search.trim()) query.set("search", search.trim());
  return listing(`/api/products?${query}`);
}

export async function readProduct(id: string): Promise<Product> {
  return (await get<{ data: Product }>(`/api/products/${encodeURIComponent(id)}`)).data;
}

/** The newest versions first. */
export const listVersions = (productId: number): Promise<Listing<Version>> =>
  listing(`/api/products/${productId}/versions`);

/** The file's path on this origin (the API's download_url is built on APP_URL, which may differ). */
export const downloadPath = (productId: number, version: Version) =>
  `/api/products/${productId}/versions/${version.id}/download`;

export async function deleteVersion(productId: number, versionId: number): Promise<void> {
  await api("DELETE", `/api/products/${productId}/versions/${versionId}`);
}

export interface PublishFields {
  version_name: string;
  title: string;
  changelog: string;
}

/**
 * Publishes a finished resumable upload as a version (the JSON publish with `upload_id`) of the whole
 * product or of one benefit; without an upload the server's 422 says the file is required, beside
 * whatever else is missing. A benefit's 404 (removed meanwhile) comes back as an error of `benefit_id`,
 * to be shown beside the Benefit select.
 */
export async function publishVersion(
  productId: number,
  fields: PublishFields,
  uploadId: string | null,
  benefitId: number | null,
): Promise<Version> {
  const body = {
    ...fields,
    changelog_format: "markdown",
    ...(uploadId === null ? {} : { upload_id: uploadId }),
  };
  if (benefitId === null)
    return (await post<{ data: Version }>(`/api/products/${productId}/versions`, body)).data;
  try {
    return (await post<{ data: Version }>(`/api/products/${productId}/benefits/${benefitId}/versions`, body))
      .data;
  } catch (failure) {
    if (failure instanceof ApiError && failure.status === 404)
      throw new ApiError(404, failure.message, { benefit_id: [failure.message] });
    throw failure;
  }
}

/** A Markdown changelog as depot renders it: sanitised HTML, safe to insert. */
export async function previewChangelog(changelog: string): Promise<string> {
  const body = { changelog, changelog_format: "markdown" };
  return (await post<{ data: { html: string } }>("/api/changelog/preview", body)).data.html;
}
