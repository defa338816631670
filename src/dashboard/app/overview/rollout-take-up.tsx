// Beside a version's rollout slider: how many clients took it and whether any went back to an older
// version (the stats API's `rollouts` series, which the product's page loads once and hands down
// through this context, so the version list in between need not carry it).
import { createContext } from "preact";
import { useContext } from "preact/hooks";
import { formatCount } from "../charts/numbers.ts";
import type { Version } from "../wire.ts";
import type { RolloutRow } from "./rollouts.tsx";

/** The product's live rollouts, or null where nobody loaded them (the panel then says nothing). */
export const RolloutsContext = createContext<RolloutRow[] | null>(null);

export function RolloutTakeUp({ version }: { version: Version }) {
  const rows = useContext(RolloutsContext);
  const row = rows?.find((one) => one.version_id === String(version.id));
  if (!row) return null;
  return (
    <p class="rollout-take-up" aria-live="polite">
      {`${formatCount(row.clients)} ${row.clients === 1 ? "client" : "clients"} took this version in the last 30 days. `}
      {row.failed === 0 ? (
        "None went back to an older version."
      ) : (
        <strong class="warning-text">
          {`${formatCount(row.failed)} went back to an older version after taking it: check for a failed update.`}
        </strong>
      )}
    </p>
  );
}
