// Home: for a seller an overview of the last 30 days (from the stats API) and, while it has steps
// left, the getting-started list; for everyone their name, e-mail and role.
import { Layout } from "../layout.tsx";
import { useLoad } from "../load.ts";
import { Loaded } from "../loaded.tsx";
import { loadOverview } from "../overview/api.ts";
import { GettingStarted } from "../overview/getting-started.tsx";
import { ValidationsChart } from "../overview/validations-chart.tsx";
import type { PageProps } from "../pages.ts";
import { sells } from "../session.ts";
import type { User } from "../wire.ts";
import { UserFacts } from "./user-facts.tsx";

function SellerOverview({ user }: { user: User }) {
  const { loading } = useLoad(() => loadOverview(user), "The overview could not be loaded.");
  return (
    <Loaded loading={loading} label="Loading the overview…">
      {(overview) => (
        <>
          <GettingStarted user={user} overview={overview} />
          <section aria-labelledby="overview-heading">
            <h2 id="overview-heading">The last 30 days</h2>
            <dl class="stat-tiles">
              <div>
                <dt>Products</dt>
                <dd>{overview.products.length.toLocaleString()}</dd>
              </div>
              <div>
                <dt>Validations</dt>
                <dd>{overview.validations.reduce((total, row) => total + row.count, 0).toLocaleString()}</dd>
              </div>
              <div>
                <dt>Downloads</dt>
                <dd>{overview.downloads.toLocaleString()}</dd>
              </div>
              <div>
                <dt>Update checks</dt>
                <dd>{overview.polls.toLocaleString()}</dd>
              </div>
            </dl>
            <ValidationsChart rows={overview.validations} />
          </section>
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
      {sells(user) && <SellerOverview user={user} />}
      <UserFacts user={user} />
    </Layout>
  );
}
