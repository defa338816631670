// Home: for a seller an overview of the last 30 days (from the stats API), per product or all of
// them together, and while it has steps left the getting-started list; for an admin the same over
// every product plus users and purchases; for a customer their licenses, seats and newest versions.
// Everyone sees their name, e-mail and role.
import { useState } from "preact/hooks";
import { Layout } from "../layout.tsx";
import { useLoad } from "../load.ts";
import { Loaded } from "../loaded.tsx";
import { loadOverview, type Overview } from "../overview/api.ts";
import { CustomerOverview } from "../overview/customer.tsx";
import { GettingStarted } from "../overview/getting-started.tsx";
import { UsageCharts } from "../overview/usage-charts.tsx";
import type { PageProps } from "../pages.ts";
import { sells } from "../session.ts";
import type { User } from "../wire.ts";
import { UserFacts } from "./user-facts.tsx";

function SellerUsage({ overview }: { overview: Overview }) {
  // "" shows every product together.
  const [shown, setShown] = useState("");
  const productId = shown === "" ? null : Number(shown);
  return (
    <section aria-labelledby="overview-heading">
      <h2 id="overview-heading">The last 30 days</h2>
      {overview.products.length > 1 && (
        <p class="field-inline">
          <label for="overview-product">Show</label>{" "}
          <select
            id="overview-product"
            value={shown}
            onChange={(event) => setShown(event.currentTarget.value)}
          >
            <option value="">All products</option>
            {overview.products.map((product) => (
              <option key={product.id} value={String(product.id)}>
                {product.name}
              </option>
            ))}
          </select>
        </p>
      )}
      <UsageCharts
        stats={overview.stats}
        latest={overview.latest}
        productId={productId}
        products={overview.products}
        extraTiles={
          productId !== null
            ? []
            : [
                { label: "Products", value: overview.products.length },
                ...(overview.counts
                  ? [
                      { label: "Users", value: overview.counts.users },
                      { label: "Purchases", value: overview.counts.purchases },
                    ]
                  : []),
              ]
        }
      />
    </section>
  );
}

function SellerOverview({ user }: { user: User }) {
  const { loading } = useLoad(() => loadOverview(user), "The overview could not be loaded.");
  return (
    <Loaded loading={loading} label="Loading the overview…">
      {(overview) => (
        <>
          <GettingStarted user={user} overview={overview} />
          <SellerUsage overview={overview} />
        </>
      )}
    </Loaded>
  );
}

export function Home({ user, onSignedOut }: PageProps) {
  return (
    <Layout
      user={user}
      title={
        <>
          Welcome, <bdi>{user.name}</bdi>
        </>
      }
      onSignedOut={onSignedOut}
    >
      {sells(user) ? <SellerOverview user={user} /> : <CustomerOverview />}
      <UserFacts user={user} />
    </Layout>
  );
}
