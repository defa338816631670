// An existing license's settings, opened under its row: its policy, expiry, address limit, machine
// seats, floating and the heartbeat interval. Only what the vendor changed is sent, so an expiry left alone
// keeps its exact time; a 422 shows beside the field it is about.
import { Field } from "../field.tsx";
import { useForm } from "../form.ts";
import type { License, LicenseChange, Policy } from "../wire.ts";
import { updateLicense } from "./api.ts";
import { endOfDay } from "./form.tsx";
import { PolicySelect } from "./policy-select.tsx";
import { LicenseSettingsFields } from "./settings-fields.tsx";

interface Props {
  id: string;
  productId: string;
  license: License;
  /** The product's policies, to move the license to one (or off its own). */
  policies: Policy[];
  /** Saved: the list shows the license as it is now. */
  onSaved: () => void;
}

/** A timestamp as a date input shows it: the day it falls on where the vendor is. */
function dayOf(timestamp: string | null): string {
  if (timestamp === null) return "";
  const date = new Date(timestamp);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

const text = (value: number | null) => (value === null ? "" : String(value));

/** What typed text sends: empty is null (none), a number is sent as typed for the server to judge. */
const numberOrNull = (typed: string) => (typed.trim() === "" ? null : Number(typed));

export function EditLicense({ id, productId, license, policies, onSaved }: Props) {
  const initial = {
    policy: license.policy_id === null ? "" : String(license.policy_id),
    expires: dayOf(license.expires),
    max_ips: text(license.max_ips),
    max_machines: text(license.max_machines),
    floating: license.floating,
    heartbeat_seconds: text(license.heartbeat_seconds),
  };
  const form = useForm(initial, { failure: "Saving the license failed." });
  const { values } = form;

  const submit = async (event: Event) => {
    event.preventDefault();
    const change: LicenseChange = {};
    if (values.policy !== initial.policy) change.policy = values.policy ? Number(values.policy) : null;
    if (values.expires !== initial.expires) {
      // Empty: never expires. An unreadable date is sent as typed, for the server to name it.
      const { expires } = values;
      change.expires = !expires ? null : Number.isNaN(Date.parse(expires)) ? expires : endOfDay(expires);
    }
    if (values.max_ips !== initial.max_ips) change.max_ips = numberOrNull(values.max_ips);
    if (values.max_machines !== initial.max_machines) change.max_machines = numberOrNull(values.max_machines);
    if (values.floating !== initial.floating) change.floating = values.floating;
    if (values.heartbeat_seconds !== initial.heartbeat_seconds)
      change.heartbeat_seconds = numberOrNull(values.heartbeat_seconds);
    if (await form.run(async () => void (await updateLicense(productId, license.id, change)))) onSaved();
  };

  const field = (name: string) => `${id}-${name}`;
  return (
    <form
      id={id}
      class="expanded"
      onSubmit={submit}
      aria-label={`Settings of the license of ${license.owner.email}`}
      noValidate
    >
      {form.summary && (
        <p class="field-error" role="alert">
          {form.summary}
        </p>
      )}
      {(policies.length > 0 || license.policy_id !== null) && (
        <PolicySelect
          id={field("policy")}
          policies={policies}
          value={values.policy}
          error={form.errorOf("policy")}
          onChange={(value) => form.set("policy", value)}
          hint="The settings this license has not set itself take the policy's numbers and follow it; None keeps the numbers it has now, as its own."
        />
      )}
      <LicenseSettingsFields
        form={form}
        id={field}
        hints={{
          expires: "The license works until the end of this day (your time). Empty: never expires.",
          max_ips: "How many addresses may use it at once. Empty: no address limit.",
          max_machines:
            "Empty: machines are not counted. Lowering it deactivates no machine: new ones wait for a free seat.",
          floating: "A machine keeps its seat only while it sends heartbeats.",
        }}
      />
      <Field
        id={field("heartbeat")}
        label="Heartbeat seconds"
        {...form.input("heartbeat_seconds")}
        alert
        type="number"
        inputMode="numeric"
        min={10}
        max={86400}
        name="heartbeat_seconds"
        hint="10 to 86,400. Empty: no heartbeats (a floating license gets 600)."
      />
      <button type="submit" disabled={form.busy}>
        {form.busy ? "Saving…" : "Save settings"}
      </button>
    </form>
  );
}
