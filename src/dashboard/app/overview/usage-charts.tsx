// A seller's usage over the stats API's range, for one product or all of them: number tiles, then
// validations by outcome, active machines, downloads, version adoption and the live rollouts. Home
// and a product's page show the same.
import { formatCount, formatShare } from "../charts/numbers.ts";
import { TimeChart } from "../charts/time-chart.tsx";
import type { Product, Stats } from "../wire.ts";
import { Rollouts } from "./rollouts.tsx";
import {
  adoptionSeries,
  daysOf,
  downloadSeries,
  lastOf,
  machineSeries,
  ofProduct,
  onLatest,
  sumOf,
  validationSeries,
} from "./usage.ts";

interface Props {
  stats: Stats;
  /** Each product's latest version name, for "on latest". */
  latest: Map<number, string>;
  /** One product's usage, or (null) every product's together. */
  productId: number | null;
  /** Every product shown (names for adoption and rollouts when all are shown). */
  products: Product[];
  /** More tiles first (an admin's users and purchases). */
  extraTiles?: { label: string; value: number }[];
}

function Adoption({ stats, product, days }: { stats: Stats; product: Product; days: string[] }) {
  const series = adoptionSeries(stats, product.id);
  if (series.length === 0) return null;
  return (
    <TimeChart
      caption={`${product.name}: share of clients per version (clients seen in the 7 days up to each day)`}
      days={days}
      series={series}
      kind="stacked"
      unit="share"
    />
  );
}

export function UsageCharts({ stats, latest, productId, products, extraTiles = [] }: Props) {
  const days = daysOf(stats);
  const validations = validationSeries(stats, productId);
  const machines = machineSeries(stats, productId);
  const downloads = downloadSeries(stats, productId);
  const latestShare = onLatest(stats, latest, productId);
  const shown = productId === null ? products : products.filter((product) => product.id === productId);
  const tiles = [
    ...extraTiles.map((tile) => ({ label: tile.label, text: formatCount(tile.value) })),
    { label: "Validations", text: formatCount(sumOf(validations)) },
    { label: "Active machines", text: formatCount(lastOf(machines)) },
    { label: "Downloads", text: formatCount(sumOf(downloads)) },
    { label: "On latest", text: latestShare === null ? "–" : formatShare(latestShare) },
  ];
  return (
    <>
      <dl class="stat-tiles">
        {tiles.map((tile) => (
          <div key={tile.label}>
            <dt>{tile.label}</dt>
            <dd>{tile.text}</dd>
          </div>
        ))}
      </dl>
      <div class="charts">
        <section aria-labelledby="validations-heading">
          <h3 id="validations-heading">Validations</h3>
          {validations.length === 0 ? (
            <p class="empty">No validations yet. They show here once your app checks its license.</p>
          ) : (
            <TimeChart
              caption="Validations per day by outcome"
              days={days}
              series={validations}
              kind="stacked"
              total
            />
          )}
        </section>
        <section aria-labelledby="machines-heading">
          <h3 id="machines-heading">Active machines</h3>
          {machines.length === 0 ? (
            <p class="empty">No machines yet. They show here once your app activates one.</p>
          ) : (
            <TimeChart
              caption="Active machines per day (the day's highest)"
              days={days}
              series={machines}
              kind="line"
            />
          )}
        </section>
        <section aria-labelledby="downloads-heading">
          <h3 id="downloads-heading">Downloads</h3>
          {downloads.length === 0 ? (
            <p class="empty">No downloads yet.</p>
          ) : (
            <TimeChart caption="Downloads per day" days={days} series={downloads} kind="stacked" />
          )}
        </section>
        <section aria-labelledby="adoption-heading">
          <h3 id="adoption-heading">Version adoption</h3>
          {ofProduct(stats, "adoption", productId).length === 0 ? (
            <p class="empty">
              No client has reported its version yet. Updaters report it when they check for updates.
            </p>
          ) : (
            shown.map((product) => <Adoption key={product.id} stats={stats} product={product} days={days} />)
          )}
        </section>
      </div>
      <Rollouts
        rows={ofProduct(stats, "rollouts", productId)}
        products={productId === null ? products : null}
      />
    </>
  );
}
