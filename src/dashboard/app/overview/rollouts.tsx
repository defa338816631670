// Live rollouts (the stats API's `rollouts` series): each version offered to part of the clients,
// its percentage, the steps still to come, how many clients took it and how many went back to an
// older version. A table: it is the text, there is no chart to describe.

import { formatCount, formatShare } from "../charts/numbers.ts";
import { ScrollBox } from "../charts/scroll-box.tsx";
import { NavLink } from "../nav.tsx";
import { productPath } from "../paths.ts";
import type { Product, Stats } from "../wire.ts";

export type RolloutRow = NonNullable<Stats["series"]["rollouts"]>[number];

/** The API's `at=percentage;…` as steps. */
export const scheduleOf = (row: RolloutRow) =>
  row.schedule === ""
    ? []
    : row.schedule.split(";").map((step) => {
        const [at = "", percentage = "0"] = step.split("=");
        return { at, percentage: Number(percentage) };
      });

const when = (at: string) =>
  new Date(at).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });

/** "Went back": a count, flagged when there is any. */
export function FailedCount({ row }: { row: RolloutRow }) {
  if (row.failed === 0) return <>{formatCount(0)}</>;
  return <strong class="warning-text">{formatCount(row.failed)}</strong>;
}

export function Rollouts({ rows, products }: { rows: RolloutRow[]; products: Product[] | null }) {
  const nameOf = (id: string) => products?.find((product) => String(product.id) === id)?.name ?? `#${id}`;
  return (
    <section aria-labelledby="rollouts-heading">
      <h3 id="rollouts-heading">Live rollouts</h3>
      {rows.length === 0 ? (
        <p class="empty">
          No version is being rolled out: every published version is offered to every client.
        </p>
      ) : (
        <ScrollBox label="Live rollouts">
          <table>
            <thead>
              <tr>
                {products && <th scope="col">Product</th>}
                <th scope="col">Version</th>
                <th scope="col" class="numeric">
                  Offered to
                </th>
                <th scope="col">Next steps</th>
                <th scope="col" class="numeric">
                  Clients that took it
                </th>
                <th scope="col" class="numeric">
                  Went back
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.version_id}>
                  {products && (
                    <td>
                      <NavLink href={productPath(row.product_id)}>
                        <bdi>{nameOf(row.product_id)}</bdi>
                      </NavLink>
                    </td>
                  )}
                  <td>
                    <bdi>{row.version}</bdi>
                  </td>
                  <td class="numeric">{formatShare(row.percentage / 100)}</td>
                  <td>
                    {scheduleOf(row).length === 0
                      ? "None"
                      : scheduleOf(row).map((step) => (
                          <div key={step.at}>
                            {formatShare(step.percentage / 100)} from{" "}
                            <time dateTime={step.at}>{when(step.at)}</time>
                          </div>
                        ))}
                  </td>
                  <td class="numeric">{formatCount(row.clients)}</td>
                  <td class="numeric">
                    <FailedCount row={row} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollBox>
      )}
    </section>
  );
}
