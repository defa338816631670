// A license's registered addresses, opened under its row: each with when it was first and last seen,
// "Forget" for one and "Reset all" (the vendor is not held to the customer's 3 resets a day).
import { useState } from "preact/hooks";
import { messageOf } from "../api.ts";
import { formatDate } from "../dates.ts";
import { ErrorAlert } from "../error-alert.tsx";
import { useLoad } from "../load.ts";
import { Loaded } from "../loaded.tsx";
import type { License } from "../wire.ts";
import { forgetIps, listIps } from "./api.ts";

interface Props {
  id: string;
  productId: string;
  license: License;
  /** An address was forgotten: the list's count changes. */
  onChanged: () => void;
}

export function LicenseIps({ id, productId, license, onChanged }: Props) {
  const { loading, reload } = useLoad(
    () => listIps(productId, license.id),
    "The addresses could not be loaded.",
  );
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const forget = async (ip: string | null) => {
    const question =
      ip === null
        ? "Forget every address of this license?"
        : `Forget ${ip}? It can register again when next used.`;
    if (!confirm(question)) return;
    setBusy(ip ?? "all");
    setError(null);
    try {
      await forgetIps(productId, license.id, ip);
      onChanged();
    } catch (failure) {
      setError(messageOf(failure, "Forgetting the address failed."));
    }
    setBusy(null);
    await reload();
  };

  return (
    <div id={id} class="expanded">
      <ErrorAlert message={error} />
      <Loaded loading={loading} label="Loading addresses…">
        {(ips) =>
          ips.length === 0 ? (
            <p class="empty">
              No addresses registered: the first validation from a machine registers its address.
            </p>
          ) : (
            <>
              <ul class="rows">
                {ips.map((row) => (
                  <li key={row.ip} class="row">
                    <div class="row-main">
                      <code>{row.ip}</code>
                      <span class="hint">
                        First seen <time dateTime={row.first_seen_at}>{formatDate(row.first_seen_at)}</time>
                        {" · "}
                        Last seen <time dateTime={row.last_seen_at}>{formatDate(row.last_seen_at)}</time>
                      </span>
                    </div>
                    <button
                      type="button"
                      class="secondary"
                      onClick={() => forget(row.ip)}
                      disabled={busy !== null}
                      aria-label={`Forget ${row.ip}`}
                    >
                      {busy === row.ip ? "Forgetting…" : "Forget"}
                    </button>
                  </li>
                ))}
              </ul>
              <button type="button" class="danger" onClick={() => forget(null)} disabled={busy !== null}>
                {busy === "all" ? "Resetting…" : "Reset all"}
              </button>
            </>
          )
        }
      </Loaded>
    </div>
  );
}
