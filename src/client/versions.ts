import type { VersionJson, VersionPageJson } from "../features/versions/schemas.ts";
import type { DepotClient } from "./depot-client.ts";
import { Refused } from "./failures.ts";

/** A version as the API sends it (the server's own schema, so a change to it breaks this at compile time). */
export type Version = (typeof VersionJson)["static"];
type VersionPage = (typeof VersionPageJson)["static"];

/** The most the list endpoint sends a page: fewer requests for a long history. */
const PER_PAGE = 100;

/**
 * Every version of the product, newest first, page after page until the server says there is no
 * next one. Page numbers are counted here rather than following `links.next`, which is built from
 * the server's APP_URL and may not be the address this client reaches it at.
 */
export async function* versionsOf(client: DepotClient, productId: number): AsyncGenerator<Version> {
  for (let page = 1; ; page++) {
    const body = await client.json<VersionPage>(
      `/api/products/${productId}/versions?per_page=${PER_PAGE}&page=${page}`,
    );
    yield* body.data;
    if (body.links.next === null || body.data.length === 0) return;
  }
}

/** The versions of the whole product (`benefitId` null) or of one benefit, as download and latest see them. */
export const forBenefit = (version: Version, benefitId: number | null) =>
  version.purchase_benefit_id === benefitId;

/** The newest version of the whole product, or of one benefit. */
export async function latestVersion(client: DepotClient, productId: number, benefitId: number | null) {
  const query = benefitId === null ? "" : `?benefit=${benefitId}`;
  return (await client.json<{ data: Version }>(`/api/products/${productId}/versions/latest${query}`)).data;
}

/** The version named `name` (of the whole product, or of one benefit): names are unique within each. */
export async function versionNamed(
  client: DepotClient,
  productId: number,
  benefitId: number | null,
  name: string,
): Promise<Version> {
  for await (const version of versionsOf(client, productId)) {
    if (version.version_number === name && forBenefit(version, benefitId)) return version;
  }
  const of = benefitId === null ? `product ${productId}` : `benefit ${benefitId} of product ${productId}`;
  throw new Refused(`${of} has no version named "${name}"`);
}

export async function versionById(client: DepotClient, productId: number, versionId: number) {
  return (await client.json<{ data: Version }>(`/api/products/${productId}/versions/${versionId}`)).data;
}

export const downloadPath = (productId: number, versionId: number) =>
  `/api/products/${productId}/versions/${versionId}/download`;
