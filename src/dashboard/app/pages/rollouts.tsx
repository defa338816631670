// Ship → Rollouts: the versions being rolled out now (published to part of the clients, or with a step
// still to come), with their percentage and schedule; each links to its product's page, where the
// slider and the steps are.
import { formatDate } from "../dates.ts";
import { Layout } from "../layout.tsx";
import { useLoad } from "../load.ts";
import { Loaded } from "../loaded.tsx";
import { NavLink } from "../nav.tsx";
import type { PageProps } from "../pages.ts";
import { productPath } from "../paths.ts";
import { isRollingOut, listShipped, type ShippedVersion } from "../ship/api.ts";
import { type Column, Table } from "../table.tsx";

/** The schedule's steps still to come, soonest first. */
function stepsAhead({ version }: ShippedVersion, now = Date.now()) {
  return (version.rollout_schedule ?? [])
    .filter((step) => Date.parse(step.at) > now)
    .sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
}

const COLUMNS: Column<ShippedVersion>[] = [
  {
    label: "Product",
    sortBy: (row) => row.product.name.toLocaleLowerCase(),
    cell: (row) => <bdi>{row.product.name}</bdi>,
  },
  {
    label: "Version",
    sortBy: (row) => row.version.id,
    cell: (row) => <bdi class="version-number">{row.version.version_number}</bdi>,
  },
  { label: "Channel", sortBy: (row) => row.version.channel, cell: (row) => row.version.channel },
  {
    label: "Percentage",
    numeric: true,
    sortBy: (row) => row.version.rollout_percentage,
    cell: (row) => `${row.version.rollout_percentage.toLocaleString()} %`,
  },
  {
    label: "Schedule",
    sortBy: (row) => {
      const next = stepsAhead(row)[0];
      return next ? Date.parse(next.at) : Number.MAX_SAFE_INTEGER;
    },
    cell: (row) => {
      const steps = stepsAhead(row);
      if (steps.length === 0) return <span class="hint">No steps ahead</span>;
      return (
        <ul class="steps">
          {steps.map((step) => (
            <li key={step.at}>
              {`${step.percentage} % from `}
              <time dateTime={step.at}>{formatDate(step.at)}</time>
            </li>
          ))}
        </ul>
      );
    },
  },
  {
    label: "Actions",
    cell: (row) => (
      <NavLink href={productPath(row.product.id)}>
        Change
        <span class="visually-hidden">
          {" "}
          the rollout of {row.product.name} {row.version.version_number}
        </span>
      </NavLink>
    ),
  },
];

export function Rollouts({ user, onSignedOut }: PageProps) {
  const { loading } = useLoad(listShipped, "The rollouts could not be loaded.");
  return (
    <Layout user={user} title="Rollouts" onSignedOut={onSignedOut}>
      <p>
        The versions offered to only part of the clients now, or with a step still to come. Change one on its
        product's page.
      </p>
      <section aria-labelledby="rollouts-heading" aria-busy={loading.state === "loading"}>
        <h2 id="rollouts-heading" class="visually-hidden">
          Live rollouts
        </h2>
        <Loaded loading={loading} label="Loading rollouts…">
          {({ rows }) => {
            const live = rows.filter((row) => isRollingOut(row.version));
            return live.length === 0 ? (
              <p class="empty">
                No rollouts under way: every published version is offered to all its clients.
              </p>
            ) : (
              <Table caption="Live rollouts" columns={COLUMNS} rows={live} rowKey={(row) => row.version.id} />
            );
          }}
        </Loaded>
      </section>
    </Layout>
  );
}
