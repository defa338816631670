// A product's license policies on its licenses page: the list (each with Edit and Delete), and a
// form for a new one. A new license may be made from one (the New license form's Policy choice), an
// existing one moved to one (its Settings); changing a policy changes its licenses, deleting it leaves
// them their numbers as their own.

import { useState } from "preact/hooks";
import { messageOf } from "../api.ts";
import { isolated } from "../bidi.ts";
import { ErrorAlert } from "../error-alert.tsx";
import { Field } from "../field.tsx";
import { type Form, useForm } from "../form.ts";
import { FormPanel } from "../form-panel.tsx";
import type { NewPolicy, Policy, PolicyChange } from "../wire.ts";
import { createPolicy, deletePolicy, updatePolicy } from "./api.ts";

const limit = (value: number | null, none: string) => (value === null ? none : String(value));
const DAY = 86_400;
const HOUR = 3_600;

/** What the policy forms hold: typed text, in the units the reader types (days, hours). */
interface PolicyValues {
  name: string;
  max_machines: string;
  max_ips: string;
  duration_days: string;
  floating: boolean;
  heartbeat_seconds: string;
  file_ttl_hours: string;
}

const EMPTY: PolicyValues = {
  name: "",
  max_machines: "",
  max_ips: "",
  duration_days: "",
  floating: false,
  heartbeat_seconds: "",
  file_ttl_hours: "",
};

/** Seconds shown in a larger unit, without a float's noise (a duration set by the API may be any second). */
const inUnit = (seconds: number | null, unit: number) =>
  seconds === null ? "" : String(Number((seconds / unit).toFixed(4)));

/** A policy as its edit form starts: its numbers as they are now. */
const valuesOf = (policy: Policy): PolicyValues => ({
  name: policy.name,
  max_machines: limit(policy.max_machines, ""),
  max_ips: limit(policy.max_ips, ""),
  duration_days: inUnit(policy.duration_seconds, DAY),
  floating: policy.floating,
  heartbeat_seconds: limit(policy.heartbeat_seconds, ""),
  file_ttl_hours: inUnit(policy.machine_file_ttl_max, HOUR),
});

/** Empty is null (none); a number is sent as typed, for the server to judge. */
const numberOrNull = (typed: string) => (typed.trim() === "" ? null : Number(typed));
const secondsOrNull = (typed: string, unit: number) => {
  const value = numberOrNull(typed);
  return value === null ? null : Math.round(value * unit);
};

/** Each field as the API names it, from what is typed. */
const wireOf = (values: PolicyValues): Required<PolicyChange> => ({
  name: values.name.trim(),
  max_machines: numberOrNull(values.max_machines),
  max_ips: numberOrNull(values.max_ips),
  duration_seconds: secondsOrNull(values.duration_days, DAY),
  floating: values.floating,
  heartbeat_seconds: numberOrNull(values.heartbeat_seconds),
  machine_file_ttl_max: secondsOrNull(values.file_ttl_hours, HOUR),
});

/** The API's field each typed value is sent as. */
const WIRE_NAME: Record<keyof PolicyValues, keyof PolicyChange> = {
  name: "name",
  max_machines: "max_machines",
  max_ips: "max_ips",
  duration_days: "duration_seconds",
  floating: "floating",
  heartbeat_seconds: "heartbeat_seconds",
  file_ttl_hours: "machine_file_ttl_max",
};

/** The 422's keys of the values typed in another unit, beside their inputs. */
const ERROR_KEYS = {
  duration_days: ["duration_seconds"],
  file_ttl_hours: ["machine_file_ttl_max"],
};

export function PolicyList({
  productId,
  policies,
  onChanged,
}: {
  productId: string;
  policies: Policy[];
  /** A policy was changed or deleted: the policies and the licenses are read again. */
  onChanged: () => void;
}) {
  const [editing, setEditing] = useState<number | null>(null);
  const [deleting, setDeleting] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  if (policies.length === 0) return <p class="empty">No policies yet: every license has its own numbers.</p>;

  const remove = async (policy: Policy) => {
    const name = isolated(policy.name);
    const count = policy.license_count;
    const kept =
      count === 1
        ? "Its 1 license keeps the settings it has now, as its own."
        : `Its ${count} licenses keep the settings they have now, as their own.`;
    const question = count === 0 ? `Delete the policy ${name}?` : `Delete the policy ${name}? ${kept}`;
    if (!confirm(question)) return;
    setDeleting(policy.id);
    setError(null);
    try {
      await deletePolicy(productId, policy.id);
      if (editing === policy.id) setEditing(null);
      onChanged();
    } catch (failure) {
      setError(messageOf(failure, "Deleting the policy failed."));
    }
    setDeleting(null);
  };

  return (
    <>
      <ErrorAlert message={error} />
      <ul class="policies" aria-label="License policies">
        {policies.map((policy) => {
          const panelId = `edit-policy-${policy.id}`;
          return (
            <li key={policy.id}>
              <strong>
                <bdi>{policy.name}</bdi>
              </strong>{" "}
              — machines {limit(policy.max_machines, "uncounted")}, IPs {limit(policy.max_ips, "no limit")}
              {policy.floating ? ", floating" : ""}, lasts{" "}
              {policy.duration_seconds === null
                ? "forever"
                : `${Math.round(policy.duration_seconds / DAY)} days`}
              , {policy.license_count} license{policy.license_count === 1 ? "" : "s"}{" "}
              <div class="actions">
                <button
                  type="button"
                  class="secondary"
                  aria-expanded={editing === policy.id}
                  aria-controls={panelId}
                  aria-label={`Edit policy ${policy.name}`}
                  onClick={() => setEditing(editing === policy.id ? null : policy.id)}
                >
                  Edit
                </button>
                <button
                  type="button"
                  class="danger"
                  aria-label={`Delete policy ${policy.name}`}
                  disabled={deleting === policy.id}
                  onClick={() => void remove(policy)}
                >
                  {deleting === policy.id ? "Deleting…" : "Delete"}
                </button>
              </div>
              {editing === policy.id && (
                <EditPolicyForm
                  id={panelId}
                  productId={productId}
                  policy={policy}
                  onSaved={() => {
                    setEditing(null);
                    onChanged();
                  }}
                />
              )}
            </li>
          );
        })}
      </ul>
    </>
  );
}

/**
 * A policy's settings, prefilled with its numbers. Only what the vendor changed is sent: a duration
 * or ceiling the API set to an odd number of seconds stays exact unless it is retyped.
 */
function EditPolicyForm({
  id,
  productId,
  policy,
  onSaved,
}: {
  id: string;
  productId: string;
  policy: Policy;
  onSaved: () => void;
}) {
  const initial = valuesOf(policy);
  const form = useForm(initial, { failure: "Saving the policy failed.", errorKeys: ERROR_KEYS });
  const submit = async (event: Event) => {
    event.preventDefault();
    const wire = wireOf(form.values);
    const change: Record<string, unknown> = {};
    for (const typed of Object.keys(initial) as (keyof PolicyValues)[]) {
      const key = WIRE_NAME[typed];
      if (form.values[typed] !== initial[typed]) change[key] = wire[key];
    }
    if (Object.keys(change).length === 0) return onSaved();
    if (await form.run(async () => void (await updatePolicy(productId, policy.id, change as PolicyChange))))
      onSaved();
  };
  return (
    <div id={id}>
      <FormPanel
        id={`${id}-form`}
        heading={`Edit policy ${policy.name}`}
        form={form}
        onSubmit={submit}
        submit="Save policy"
        busy="Saving…"
      >
        <p class="hint">Its licenses follow every change, except in the settings a license names itself.</p>
        <PolicyFields form={form} id={(name) => `${id}-${name}`} />
      </FormPanel>
    </div>
  );
}

export function NewPolicyForm({ productId, onCreated }: { productId: string; onCreated: () => void }) {
  const form = useForm(EMPTY, { failure: "Creating the policy failed.", errorKeys: ERROR_KEYS });
  const submit = async (event: Event) => {
    event.preventDefault();
    const wire = wireOf(form.values);
    // Only what was typed: the server's defaults (600 s heartbeats for a floating one) for the rest.
    const body: NewPolicy = {
      name: wire.name,
      max_machines: wire.max_machines,
      max_ips: wire.max_ips,
      duration_seconds: wire.duration_seconds,
      ...(wire.floating ? { floating: true } : {}),
      ...(wire.heartbeat_seconds === null ? {} : { heartbeat_seconds: wire.heartbeat_seconds }),
      ...(wire.machine_file_ttl_max === null ? {} : { machine_file_ttl_max: wire.machine_file_ttl_max }),
    };
    if (await form.run(async () => void (await createPolicy(productId, body)))) {
      form.reset();
      onCreated();
    }
  };
  return (
    <FormPanel
      id="new-policy"
      heading="New policy"
      form={form}
      onSubmit={submit}
      submit="Create policy"
      busy="Creating…"
    >
      <PolicyFields form={form} id={(name) => `policy-${name}`} />
    </FormPanel>
  );
}

/** A policy's inputs, in the new-policy form and in a policy's edit form (`id("max-ips")`). */
function PolicyFields({ form, id }: { form: Form<PolicyValues>; id: (name: string) => string }) {
  const numeric = { alert: true, type: "number", inputMode: "numeric" } as const;
  return (
    <>
      <Field
        id={id("name")}
        label="Policy name"
        {...form.input("name")}
        alert
        name="name"
        required
        maxLength={255}
      />
      <Field
        id={id("max-machines")}
        label="Policy max machines"
        {...form.input("max_machines")}
        {...numeric}
        name="max_machines"
        hint="Empty: machines are not counted."
      />
      <Field
        id={id("max-ips")}
        label="Policy max IPs"
        {...form.input("max_ips")}
        {...numeric}
        name="max_ips"
        hint="Empty: no address limit."
      />
      <Field
        id={id("duration")}
        label="Policy lasts (days)"
        {...form.input("duration_days")}
        {...numeric}
        name="duration_days"
        hint="A new license expires this many days after it is made. Empty: never."
      />
      <div class="check">
        <input
          type="checkbox"
          id={id("floating")}
          checked={form.values.floating}
          onChange={(event) => form.set("floating", event.currentTarget.checked)}
        />
        <label for={id("floating")}>
          Policy with floating seats{" "}
          <span class="hint">A machine keeps its seat only while it sends heartbeats.</span>
        </label>
      </div>
      <Field
        id={id("heartbeat")}
        label="Policy heartbeat seconds"
        {...form.input("heartbeat_seconds")}
        {...numeric}
        name="heartbeat_seconds"
        hint="10 to 86,400. Empty: no heartbeats (a floating policy gets 600)."
      />
      <Field
        id={id("file-ttl")}
        label="Policy longest license file (hours)"
        {...form.input("file_ttl_hours")}
        {...numeric}
        name="file_ttl_hours"
        hint="1 to 8,760 hours. Empty: the product's default."
      />
    </>
  );
}
