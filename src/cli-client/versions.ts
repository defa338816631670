import type { VersionJson, VersionPageJson } from "../features/versions/json.ts";
import { MAX_PAGE_BYTES } from "./body-limits.ts";
import type { DepotClient } from "./depot-client.ts";
import { Refused } from "./failures.ts";

/** A version as the API sends it (the server's own schema, so a change to it breaks this at compile time). */
export type Version = (typeof VersionJson)["static"];
type VersionPage = (typeof VersionPageJson)["static"];

/** The most the list endpoint sends a page: fewer requests for a long history. */
const PER_PAGE = 100;
/**
 * 100,000 versions, more than any product publishes: a server still linking a next page past this
 * is paging for ever (one answered 90,065 requests in 10 s), so the list stops with an error.
 */
const MAX_PAGES = 1000;

/**
 * Every version of the product, newest first, page after page until the server says there is no
 * next one. Page numbers are counted here rather than following `links.next`, which is built from
 * the server's APP_URL and may not be the address this client reaches it at. A version already
 * listed is not listed again (one published meanwhile pushes the page's last onto the next), and a
 * page with nothing new, or past MAX_PAGES, that still links a next one ends the list with Refused.
 */
export async function* versionsOf(client: DepotClient, productId: number): AsyncGenerator<Version> {
  const seen = new Set<number>();
  for (let page = 1; ; page++) {
    const path = `/api/products/${productId}/versions?per_page=${PER_PAGE}&page=${page}`;
    const body = await client.json<Partial<VersionPage>>(path, MAX_PAGE_BYTES);
    if (!Array.isArray(body.data)) throw notDepot(client, path, "a page of versions");
    const fresh = body.data.map((version) => checked(client, path, version)).filter((v) => !seen.has(v.id));
    for (const version of fresh) seen.add(version.id);
    yield* fresh;
    if (!body.links?.next) return;
    if (fresh.length === 0) {
      const what = body.data.length === 0 ? "an empty page" : "only versions of earlier pages";
      throw endlessPaging(client, path, `sent ${what}, yet links to a next one`);
    }
    if (page === MAX_PAGES) {
      throw endlessPaging(
        client,
        path,
        `links to a next page after ${MAX_PAGES} pages, more than any product has`,
      );
    }
  }
}

const endlessPaging = (client: DepotClient, path: string, what: string) =>
  new Refused(`${client.url(path)} ${what}: stopped paging (is it a depot server?)`);

/** The versions of the whole product (`benefitId` null) or of one benefit, as download and latest see them. */
export const forBenefit = (version: Version, benefitId: number | null) =>
  version.purchase_benefit_id === benefitId;

/** The newest version of the whole product, or of one benefit. */
export async function latestVersion(client: DepotClient, productId: number, benefitId: number | null) {
  const path = `/api/products/${productId}/versions/latest${benefitId === null ? "" : `?benefit=${benefitId}`}`;
  return checked(client, path, (await client.json<{ data?: unknown }>(path)).data);
}

/** The version named `name` (of the whole product, or of one benefit): names are unique within each. */
export async function versionNamed(
  client: DepotClient,
  productId: number,
  benefitId: number | null,
  name: string,
): Promise<Version> {
  const version = await findVersionNamed(client, productId, benefitId, name);
  if (version) return version;
  const of = benefitId === null ? `product ${productId}` : `benefit ${benefitId} of product ${productId}`;
  throw new Refused(`${of} has no version named "${name}"`);
}

/** Like versionNamed, but null when there is none (publish asks whether the name is taken). */
export async function findVersionNamed(
  client: DepotClient,
  productId: number,
  benefitId: number | null,
  name: string,
): Promise<Version | null> {
  for await (const version of versionsOf(client, productId)) {
    if (version.version_number === name && forBenefit(version, benefitId)) return version;
  }
  return null;
}

export async function versionById(client: DepotClient, productId: number, versionId: number) {
  const path = `/api/products/${productId}/versions/${versionId}`;
  return checked(client, path, (await client.json<{ data?: unknown }>(path)).data);
}

export const downloadPath = (productId: number, versionId: number) =>
  `/api/products/${productId}/versions/${versionId}/download`;

/** What the commands rely on, checked once, so a server that is not depot is told apart from a bug here. */
function checked(client: DepotClient, path: string, value: unknown): Version {
  const v = value as Partial<Version> | null | undefined;
  const fine =
    typeof v?.id === "number" &&
    typeof v.version_number === "string" &&
    typeof v.file_name === "string" &&
    typeof v.sha256 === "string" &&
    (v.purchase_benefit_id === null || typeof v.purchase_benefit_id === "number");
  if (!fine) throw notDepot(client, path, "a version");
  return v as Version;
}

const notDepot = (client: DepotClient, path: string, expected: string) =>
  new Refused(`${client.url(path)} did not answer with ${expected}: is it a depot server?`);
