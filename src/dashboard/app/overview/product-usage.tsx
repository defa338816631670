// A product's page: its usage over the last 30 days, the same charts as Home shows for it.
import type { ComponentChildren } from "preact";
import { ApiError } from "../api.ts";
import { useLoad } from "../load.ts";
import { Loaded } from "../loaded.tsx";
import type { Product, Stats } from "../wire.ts";
import { readStats } from "./api.ts";
import { RolloutsContext } from "./rollout-take-up.tsx";
import { UsageCharts } from "./usage-charts.tsx";

/**
 * The product's stats, loaded once: the charts, then `children` (the versions), whose rollout sliders
 * read each version's take-up through RolloutsContext.
 */
export function ProductUsage({
  product,
  latest,
  children,
}: {
  product: Product;
  latest: string | undefined;
  children: ComponentChildren;
}) {
  // A publisher who does not manage the product's licenses may not read its usage (403): no section.
  const { loading } = useLoad(
    () =>
      readStats(product.id).catch((error) =>
        error instanceof ApiError && error.status === 403 ? null : Promise.reject(error),
      ),
    "The usage could not be loaded.",
    [product.id],
  );
  const stats: Stats | null = loading.state === "loaded" ? loading.data : null;
  if (loading.state === "loaded" && stats === null) return <>{children}</>;
  return (
    <RolloutsContext.Provider value={stats?.series.rollouts ?? null}>
      <section aria-labelledby="usage-heading">
        <h2 id="usage-heading">Usage, the last 30 days</h2>
        <Loaded loading={loading} label="Loading the usage…">
          {(answer) =>
            answer && (
              <UsageCharts
                stats={answer}
                latest={new Map(latest === undefined ? [] : [[product.id, latest]])}
                productId={product.id}
                products={[product]}
              />
            )
          }
        </Loaded>
      </section>
      {children}
    </RolloutsContext.Provider>
  );
}
