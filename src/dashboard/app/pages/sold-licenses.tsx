// Sell → Licenses: the licenses of every product the reader manages, in one table. Each product's own
// Licenses page has the rest of them (past its first 100), the search, and the changes.
import { formatDate } from "../dates.ts";
import { Layout } from "../layout.tsx";
import { listLicenses } from "../licenses/api.ts";
import { allItems } from "../listing.ts";
import { useLoad } from "../load.ts";
import { Loaded } from "../loaded.tsx";
import { NavLink } from "../nav.tsx";
import type { PageProps } from "../pages.ts";
import { productPath } from "../paths.ts";
import { type Column, Table } from "../table.tsx";
import type { License, Product } from "../wire.ts";

interface SoldLicense {
  product: Product;
  license: License;
}

const STATUS_LABELS: Record<License["status"], string> = {
  active: "Active",
  expired: "Expired",
  revoked: "Revoked",
};

async function listSoldLicenses(): Promise<{ products: number; rows: SoldLicense[]; more: Product[] }> {
  const products = await allItems<Product>("/api/products");
  const pages = await Promise.all(
    products.map(async (product) => ({ product, page: await listLicenses(String(product.id), "") })),
  );
  return {
    products: products.length,
    rows: pages.flatMap(({ product, page }) => page.items.map((license) => ({ product, license }))),
    more: pages.filter(({ page }) => page.next !== null).map(({ product }) => product),
  };
}

const COLUMNS: Column<SoldLicense>[] = [
  {
    label: "Product",
    sortBy: (row) => row.product.name,
    cell: (row) => <bdi>{row.product.name}</bdi>,
  },
  {
    label: "Key",
    cell: (row) => <code>{row.license.key.slice(0, 8)}…</code>,
  },
  {
    label: "Owner",
    sortBy: (row) => row.license.owner.email,
    cell: (row) => (
      <>
        <bdi>{row.license.owner.name}</bdi>
        <br />
        <bdi class="hint">{row.license.owner.email}</bdi>
      </>
    ),
  },
  {
    label: "Seats",
    numeric: true,
    sortBy: (row) => [row.license.machine_count, row.license.max_machines ?? Number.MAX_SAFE_INTEGER],
    cell: ({ license }) =>
      license.max_machines === null
        ? `${license.machine_count}`
        : `${license.machine_count} of ${license.max_machines}`,
  },
  {
    label: "IPs",
    numeric: true,
    sortBy: (row) => [row.license.ip_count, row.license.max_ips ?? Number.MAX_SAFE_INTEGER],
    cell: ({ license }) =>
      license.max_ips === null ? `${license.ip_count}` : `${license.ip_count} of ${license.max_ips}`,
  },
  {
    label: "Status",
    sortBy: (row) => row.license.status,
    cell: ({ license }) => (
      <span class={`status status-${license.status}`}>{STATUS_LABELS[license.status]}</span>
    ),
  },
  {
    label: "Expires",
    // Never expiring sorts after every date.
    sortBy: (row) => (row.license.expires ? Date.parse(row.license.expires) : Number.MAX_SAFE_INTEGER),
    cell: ({ license }) =>
      license.expires ? <time dateTime={license.expires}>{formatDate(license.expires)}</time> : "Never",
  },
  {
    label: "Actions",
    cell: ({ product }) => (
      <NavLink href={productPath(product.id, "/licenses")}>
        Manage<span class="visually-hidden"> licenses of {product.name}</span>
      </NavLink>
    ),
  },
];

export function SoldLicenses({ user, onSignedOut }: PageProps) {
  const { loading } = useLoad(listSoldLicenses, "The licenses could not be loaded.");
  return (
    <Layout user={user} title="Licenses" onSignedOut={onSignedOut}>
      <p>
        The licenses of the products you manage, newest first. Open a product's licenses to search, create or
        change them.
      </p>
      <section aria-labelledby="sold-licenses-heading" aria-busy={loading.state === "loading"}>
        <h2 id="sold-licenses-heading" class="visually-hidden">
          Licenses you sold
        </h2>
        <Loaded loading={loading} label="Loading licenses…">
          {({ products, rows, more }) =>
            rows.length === 0 ? (
              <p class="empty">
                {products === 0
                  ? "No products yet, so no licenses: once you have a product, its licenses show here."
                  : "No licenses sold yet. Open a product's Licenses to create the first."}
              </p>
            ) : (
              <>
                <Table
                  caption="Licenses you sold"
                  columns={COLUMNS}
                  rows={rows}
                  rowKey={(row) => row.license.id}
                />
                {more.length > 0 && (
                  <p class="hint">
                    Only the newest 100 of each product are here;{" "}
                    {more.map((product) => product.name).join(", ")} has more on its own Licenses page.
                  </p>
                )}
              </>
            )
          }
        </Loaded>
      </section>
    </Layout>
  );
}
