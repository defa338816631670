// Ship → Versions: every version of the products the reader manages, newest first, in one table that
// sorts by product, version, channel, status or release date. A version's changes (release, yank,
// rollout) are on its product's page.
import { formatDate } from "../dates.ts";
import { Layout } from "../layout.tsx";
import { useLoad } from "../load.ts";
import { Loaded } from "../loaded.tsx";
import { NavLink } from "../nav.tsx";
import type { PageProps } from "../pages.ts";
import { productPath } from "../paths.ts";
import { nextStep, nextStepText } from "../products/rollout-schedule.tsx";
import { listShipped, type ShippedVersion } from "../ship/api.ts";
import { type Column, Table } from "../table.tsx";
import { YankedMark } from "../yanked.tsx";

const STATUS_LABELS = { published: "Published", draft: "Draft", yanked: "Yanked" } as const;

function rolloutText({ version }: ShippedVersion): string {
  if (version.status !== "published") return "—";
  const next = nextStep(version);
  return `${version.rollout_percentage} %${next ? `, then ${nextStepText(next)}` : ""}`;
}

const COLUMNS: Column<ShippedVersion>[] = [
  {
    label: "Product",
    sortBy: (row) => row.product.name.toLocaleLowerCase(),
    cell: (row) => (
      <NavLink href={productPath(row.product.id)}>
        <bdi>{row.product.name}</bdi>
      </NavLink>
    ),
  },
  {
    label: "Version",
    // Newest first is the id's order; sorting by the name would put 1.10 before 1.9.
    sortBy: (row) => row.version.id,
    cell: ({ version }) => (
      <>
        <bdi class="version-number">{version.version_number}</bdi>
        {version.benefit_name && (
          <span class="hint">
            {" "}
            (<bdi>{version.benefit_name}</bdi>)
          </span>
        )}
      </>
    ),
  },
  { label: "Channel", sortBy: (row) => row.version.channel, cell: (row) => row.version.channel },
  {
    label: "Status",
    sortBy: (row) => row.version.status,
    cell: ({ version }) =>
      version.status === "yanked" ? <YankedMark version={version} /> : STATUS_LABELS[version.status],
  },
  {
    label: "Released",
    // A draft, never released, sorts after every date.
    sortBy: (row) =>
      row.version.published_at ? Date.parse(row.version.published_at) : Number.MAX_SAFE_INTEGER,
    cell: ({ version }) =>
      version.published_at ? (
        <time dateTime={version.published_at}>{formatDate(version.published_at)}</time>
      ) : (
        "Not yet"
      ),
  },
  { label: "Rollout", cell: rolloutText },
];

export function Versions({ user, onSignedOut }: PageProps) {
  const { loading } = useLoad(listShipped, "The versions could not be loaded.");
  return (
    <Layout user={user} title="Versions" onSignedOut={onSignedOut}>
      <p>
        The versions of the products you manage, newest first. Open a product to publish, release, yank or
        roll out a version.
      </p>
      <section aria-labelledby="versions-heading" aria-busy={loading.state === "loading"}>
        <h2 id="versions-heading" class="visually-hidden">
          Versions of your products
        </h2>
        <Loaded loading={loading} label="Loading versions…">
          {({ products, rows, more }) =>
            rows.length === 0 ? (
              <p class="empty">
                {products === 0
                  ? "No products yet, so no versions: once you have a product, its versions show here."
                  : "No versions yet. Open a product and publish its first."}
              </p>
            ) : (
              <>
                <Table
                  caption="Versions of your products"
                  columns={COLUMNS}
                  rows={rows}
                  rowKey={(row) => row.version.id}
                />
                {more.length > 0 && (
                  <p class="hint">
                    Only the newest 100 of each product are here;{" "}
                    {more.map((product) => product.name).join(", ")} has more on its own page.
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
