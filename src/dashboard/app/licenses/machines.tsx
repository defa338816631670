// A license's machines, opened under its row, for the vendor supporting a customer: each machine's
// name, platform, when it was last seen and whether it still answers; "Deactivate" frees its seat. A
// machine whose license file is still valid keeps its seat (docs/vendors.md, Machines): the vendor is
// told so and may force it, warned that the file keeps working offline until it expires. "Activate
// offline" exchanges the request an air-gapped machine shows for its file, lasting the days chosen
// (up to the license's ceiling).
import { useState } from "preact/hooks";
import { ApiError, messageOf } from "../api.ts";
import { isolated } from "../bidi.ts";
import { formatDate } from "../dates.ts";
import { ErrorAlert } from "../error-alert.tsx";
import { Field, TextAreaField } from "../field.tsx";
import { useLoad } from "../load.ts";
import { Loaded } from "../loaded.tsx";
import { fileValidUntil, machineLabel, OfflineFileReady } from "../machine-files.tsx";
import type { License, OfflineFile } from "../wire.ts";
import { activateOffline, deactivateMachine, listMachines, type VendorMachine } from "./api.ts";

const DAY = 86_400;

interface Props {
  id: string;
  productId: string;
  license: License;
  /** A seat was freed or taken: the list's count changes. */
  onChanged: () => void;
}

export function LicenseMachines({ id, productId, license, onChanged }: Props) {
  const { loading, reload } = useLoad(
    () => listMachines(productId, license.id),
    "The machines could not be loaded.",
  );
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  /** The machine whose valid license file kept its seat: the force is offered for it. */
  const [held, setHeld] = useState<{ machine: VendorMachine; until: string } | null>(null);

  const deactivate = async (machine: VendorMachine, force: boolean) => {
    if (!force && !confirm(`Deactivate ${isolated(machineLabel(machine))}? It frees its seat.`)) return;
    setBusy(machine.id);
    setError(null);
    setHeld(null);
    try {
      await deactivateMachine(productId, license.id, machine.id, force);
      onChanged();
    } catch (failure) {
      if (failure instanceof ApiError && failure.status === 409) {
        setHeld({ machine, until: fileValidUntil(machine) ?? "" });
      } else {
        setError(messageOf(failure, "Deactivating the machine failed."));
      }
    }
    setBusy(null);
    await reload();
  };

  return (
    <div id={id} class="expanded">
      <ErrorAlert message={error} />
      {held && (
        <div role="alert" class="field-error">
          <p>
            <bdi>{machineLabel(held.machine)}</bdi> keeps its seat: its license file is valid
            {held.until ? (
              <>
                {" "}
                until <time dateTime={held.until}>{formatDate(held.until)}</time>
              </>
            ) : null}
            . Forcing frees the seat, but revokes nothing: the app on that machine keeps working offline until
            the file expires, so the license may run on one machine more than its seats until then.
          </p>
          <button
            type="button"
            class="danger"
            onClick={() => deactivate(held.machine, true)}
            disabled={busy !== null}
          >
            Deactivate anyway<span class="visually-hidden"> {machineLabel(held.machine)}</span>
          </button>{" "}
          <button type="button" class="secondary" onClick={() => setHeld(null)}>
            Keep it
          </button>
        </div>
      )}
      <Loaded loading={loading} label="Loading machines…">
        {({ data: machines, license_file_ttl_max }) => (
          <>
            {machines.length === 0 ? (
              <p class="empty">No machines: one is added when the app is activated on it.</p>
            ) : (
              <ul class="rows">
                {machines.map((machine) => (
                  <li key={machine.id} class="row">
                    <div class="row-main">
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
                        Last seen{" "}
                        <time dateTime={machine.last_seen_at}>{formatDate(machine.last_seen_at)}</time>
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
                    </div>
                    <button
                      type="button"
                      class="secondary"
                      onClick={() => deactivate(machine, false)}
                      disabled={busy !== null}
                    >
                      {busy === machine.id ? "Deactivating…" : "Deactivate"}
                      <span class="visually-hidden"> {machineLabel(machine)}</span>
                    </button>
                  </li>
                ))}
              </ul>
            )}
            {license.status === "active" && (
              <OfflineActivation
                id={`${id}-offline`}
                productId={productId}
                license={license}
                ceiling={license_file_ttl_max}
                onActivated={async () => {
                  onChanged();
                  await reload();
                }}
              />
            )}
          </>
        )}
      </Loaded>
    </div>
  );
}

interface OfflineProps {
  id: string;
  productId: string;
  license: License;
  /** The longest a file of this license lasts, in seconds. */
  ceiling: number;
  onActivated: () => Promise<void>;
}

function OfflineActivation({ id, productId, license, ceiling, onActivated }: OfflineProps) {
  const maxDays = Math.max(1, Math.floor(ceiling / DAY));
  const [open, setOpen] = useState(false);
  const [request, setRequest] = useState("");
  const [days, setDays] = useState(String(Math.min(30, maxDays)));
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<{ request?: string; days?: string }>({});
  const [file, setFile] = useState<OfflineFile | null>(null);

  const submit = async (event: Event) => {
    event.preventDefault();
    const chosen = Number(days);
    if (!Number.isInteger(chosen) || chosen < 1 || chosen > maxDays) {
      setErrors({ days: `Choose a whole number of days from 1 to ${maxDays}.` });
      return;
    }
    setBusy(true);
    setErrors({});
    setFile(null);
    try {
      setFile(await activateOffline(productId, license.id, request.trim(), Math.min(chosen * DAY, ceiling)));
      setRequest("");
      await onActivated();
    } catch (failure) {
      const fields = failure instanceof ApiError ? failure.fields : {};
      setErrors({
        request:
          fields.request?.[0] ??
          (fields.ttl ? undefined : messageOf(failure, "The offline activation failed.")),
        days: fields.ttl?.[0],
      });
    }
    setBusy(false);
  };

  return (
    <div class="license-offline">
      <button
        type="button"
        class="secondary"
        aria-expanded={open}
        aria-controls={id}
        onClick={() => setOpen(!open)}
      >
        Activate offline
      </button>
      {open && (
        <form
          id={id}
          onSubmit={submit}
          aria-label={`Offline activation for ${license.owner.email}`}
          noValidate
        >
          <TextAreaField
            id={`${id}-request`}
            label="Activation request"
            value={request}
            onInput={(event) => setRequest(event.currentTarget.value)}
            error={errors.request ?? null}
            alert
            rows={4}
            required
            hint="Paste the request the customer's app shows on the machine without internet access."
          />
          <Field
            id={`${id}-days`}
            label="License file valid for (days)"
            type="number"
            inputMode="numeric"
            min={1}
            max={maxDays}
            value={days}
            onInput={(event) => setDays(event.currentTarget.value)}
            error={errors.days ?? null}
            alert
            hint={`Up to ${maxDays} day${maxDays === 1 ? "" : "s"}, this license's ceiling. Until then the machine holds its seat.`}
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
