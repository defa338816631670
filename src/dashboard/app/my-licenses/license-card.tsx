// One license: its product, its key to copy, whether it is valid and until when, the addresses using
// it, and the owner's "Reset IPs" (after a confirm; the server's 429 shows here); its machines below.
import { useState } from "preact/hooks";
import { messageOf } from "../api.ts";
import { isolated } from "../bidi.ts";
import { CopyField } from "../copy-field.tsx";
import { formatDate } from "../dates.ts";
import { ErrorAlert } from "../error-alert.tsx";
import type { OwnLicense } from "../wire.ts";
import { resetIps } from "./api.ts";
import { LicenseMachines } from "./machines.tsx";

const Time = ({ iso }: { iso: string }) => <time dateTime={iso}>{formatDate(iso)}</time>;

function Status({ license }: { license: OwnLicense }) {
  if (license.status === "revoked") return <span class="status status-revoked">Revoked</span>;
  return (
    <>
      <span class={`status status-${license.status}`}>
        {license.status === "expired" ? "Expired" : "Active"}
      </span>{" "}
      {license.expires === null ? (
        "· never expires"
      ) : (
        <>
          · {license.status === "expired" ? "expired" : "expires"} <Time iso={license.expires} />
        </>
      )}
    </>
  );
}

const resetsLeft = (n: number) =>
  n === 0 ? "No resets left today." : `${n} reset${n === 1 ? "" : "s"} left today.`;

export function LicenseCard({ license, onChanged }: { license: OwnLicense; onChanged: () => Promise<void> }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const headingId = `license-${license.id}-heading`;

  const reset = async () => {
    const question =
      `Forget the ${license.ips.length} address${license.ips.length === 1 ? "" : "es"} using ` +
      `${isolated(license.product.name)}'s license? Use this after moving to another server. ` +
      `It uses one of your ${license.ip_resets_left} resets left today.`;
    if (!confirm(question)) return;
    setBusy(true);
    setError(null);
    setDone(false);
    try {
      await resetIps(license);
      setDone(true);
    } catch (failure) {
      // A 429 (three resets in 24 hours) says so in the server's words.
      setError(messageOf(failure, "Resetting the addresses failed."));
    }
    await onChanged();
    setBusy(false);
  };

  return (
    <li class="panel license" aria-labelledby={headingId}>
      <h2 id={headingId} dir="auto">
        {license.product.name}
      </h2>
      <p class="license-status">
        <Status license={license} />
      </p>
      <CopyField id={`license-key-${license.id}`} label="License key" value={license.key} />
      <h3>
        IP addresses in use: {license.ips.length}
        {license.max_ips === null ? " (no limit)" : ` of ${license.max_ips}`}
      </h3>
      {license.ips.length === 0 ? (
        <p class="empty">None yet: an address is added when the license is validated from it.</p>
      ) : (
        <ul class="license-ips">
          {license.ips.map((ip) => (
            <li key={ip.ip}>
              <code>{ip.ip}</code>
              <span class="hint">
                First seen <Time iso={ip.first_seen_at} /> · last seen <Time iso={ip.last_seen_at} />
              </span>
            </li>
          ))}
        </ul>
      )}
      <ErrorAlert message={error} />
      <p aria-live="polite" class="hint">
        {done && "The addresses were forgotten."}
      </p>
      <div class="license-reset">
        <button
          type="button"
          class="secondary"
          onClick={reset}
          disabled={busy || license.ip_resets_left === 0}
          aria-describedby={`license-${license.id}-resets`}
        >
          {busy ? "Resetting…" : "Reset IPs"}
          <span class="visually-hidden"> of {license.product.name}</span>
        </button>
        <span id={`license-${license.id}-resets`} class="hint">
          {resetsLeft(license.ip_resets_left)}
        </span>
      </div>
      <LicenseMachines license={license} onChanged={onChanged} />
    </li>
  );
}
