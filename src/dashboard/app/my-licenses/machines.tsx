// A license's machines on its card: which are activated, whether each still answers, Deactivate to
// free a seat (after a confirm), and "Activate offline": the request an air-gapped machine shows is
// pasted here and exchanged for its license file to carry back.
import { useState } from "preact/hooks";
import { messageOf } from "../api.ts";
import { isolated } from "../bidi.ts";
import { formatDate } from "../dates.ts";
import { ErrorAlert } from "../error-alert.tsx";
import { TextAreaField } from "../field.tsx";
import { fileValidUntil, machineLabel, OfflineFileReady } from "../machine-files.tsx";
import type { OfflineFile, OwnLicense, OwnMachine } from "../wire.ts";
import { activateOffline, deactivateMachine } from "./api.ts";

/** A machine holds its seat while it answers, and while its license file is valid (docs/vendors.md). */
const holdsSeat = (machine: OwnMachine) => machine.alive || fileValidUntil(machine) !== null;

export function LicenseMachines({
  license,
  onChanged,
}: {
  license: OwnLicense;
  onChanged: () => Promise<void>;
}) {
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const inUse = license.machines.filter(holdsSeat).length;
  const headingId = `license-${license.id}-machines`;

  const deactivate = async (machine: OwnMachine) => {
    if (
      !confirm(
        `Deactivate ${isolated(machineLabel(machine))}? It frees its seat; the app there stops working until activated again.`,
      )
    )
      return;
    setBusy(machine.id);
    setError(null);
    try {
      await deactivateMachine(license, machine);
    } catch (failure) {
      setError(messageOf(failure, "Deactivating the machine failed."));
    }
    await onChanged();
    setBusy(null);
  };

  return (
    <section aria-labelledby={headingId}>
      <h3 id={headingId}>
        {license.max_machines === null
          ? `Machines: ${inUse}`
          : `Machines in use: ${inUse} of ${license.max_machines}`}
      </h3>
      {license.machines.length === 0 ? (
        <p class="empty">None yet: a machine is added when the app is activated on it.</p>
      ) : (
        <ul class="license-machines">
          {license.machines.map((machine) => (
            <li key={machine.id}>
              <bdi>{machineLabel(machine)}</bdi>{" "}
              <span class={`status status-${machine.alive ? "active" : "expired"}`}>
                {machine.alive ? "Active" : "Not responding"}
              </span>
              <span class="hint">
                {machine.platform && (
                  <>
                    <bdi>{machine.platform}</bdi> ·{" "}
                  </>
                )}
                last seen <time dateTime={machine.last_seen_at}>{formatDate(machine.last_seen_at)}</time>
                {fileValidUntil(machine) !== null && (
                  <>
                    {" "}
                    · license file until{" "}
                    <time dateTime={machine.file_expires_at ?? ""}>
                      {formatDate(machine.file_expires_at ?? "")}
                    </time>
                  </>
                )}
              </span>
              <button
                type="button"
                class="secondary"
                onClick={() => deactivate(machine)}
                disabled={busy === machine.id}
              >
                {busy === machine.id ? "Deactivating…" : "Deactivate"}
                <span class="visually-hidden"> {machineLabel(machine)}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <ErrorAlert message={error} />
      {license.status === "active" && <OfflineActivation license={license} onChanged={onChanged} />}
    </section>
  );
}

function OfflineActivation({ license, onChanged }: { license: OwnLicense; onChanged: () => Promise<void> }) {
  const [open, setOpen] = useState(false);
  const [request, setRequest] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [file, setFile] = useState<OfflineFile | null>(null);
  const panelId = `license-${license.id}-offline`;

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setFile(null);
    try {
      setFile(await activateOffline(license, request.trim()));
      setRequest("");
      await onChanged();
    } catch (failure) {
      setError(messageOf(failure, "The offline activation failed."));
    }
    setBusy(false);
  };

  return (
    <div class="license-offline">
      <button
        type="button"
        class="secondary"
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => setOpen(!open)}
      >
        Activate offline
      </button>
      {open && (
        <form id={panelId} onSubmit={submit}>
          <TextAreaField
            id={`${panelId}-request`}
            label="Activation request"
            value={request}
            onInput={(event) => setRequest(event.currentTarget.value)}
            error={error}
            alert
            rows={4}
            required
            hint="Paste the request the app shows on the machine without internet access."
          />
          <button type="submit" disabled={busy}>
            {busy ? "Activating…" : "Get license file"}
          </button>
          {file && <OfflineFileReady file={file} licenseId={license.id} />}
        </form>
      )}
    </div>
  );
}
