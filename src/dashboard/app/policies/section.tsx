// A product's license policies on its licenses page: the list, and a form for a new one. A new license
// may be made from one (the New license form's Policy choice); changing one changes its licenses.

import { Field } from "../field.tsx";
import { useForm } from "../form.ts";
import { FormPanel } from "../form-panel.tsx";
import type { NewPolicy, Policy } from "../wire.ts";
import { createPolicy } from "./api.ts";

const limit = (value: number | null, none: string) => (value === null ? none : String(value));
const DAY = 86_400;

export function PolicyList({ policies }: { policies: Policy[] }) {
  if (policies.length === 0) return <p class="empty">No policies yet: every license has its own numbers.</p>;
  return (
    <ul class="policies" aria-label="License policies">
      {policies.map((policy) => (
        <li key={policy.id}>
          <strong>
            <bdi>{policy.name}</bdi>
          </strong>{" "}
          — machines {limit(policy.max_machines, "uncounted")}, IPs {limit(policy.max_ips, "no limit")}
          {policy.floating ? ", floating" : ""}, lasts{" "}
          {policy.duration_seconds === null ? "forever" : `${Math.round(policy.duration_seconds / DAY)} days`}
          , {policy.license_count} license{policy.license_count === 1 ? "" : "s"}
        </li>
      ))}
    </ul>
  );
}

export function NewPolicyForm({ productId, onCreated }: { productId: string; onCreated: () => void }) {
  const form = useForm(
    { name: "", max_machines: "", max_ips: "", duration_days: "", floating: false },
    { failure: "Creating the policy failed." },
  );
  const { values } = form;
  const numberOrNull = (typed: string) => (typed.trim() === "" ? null : Number(typed));
  const submit = async (event: Event) => {
    event.preventDefault();
    const days = numberOrNull(values.duration_days);
    const body: NewPolicy = {
      name: values.name.trim(),
      max_machines: numberOrNull(values.max_machines),
      max_ips: numberOrNull(values.max_ips),
      duration_seconds: days === null ? null : Math.round(days * DAY),
      ...(values.floating ? { floating: true } : {}),
    };
    if (await form.run(async () => void (await createPolicy(productId, body)))) {
      form.reset();
      onCreated();
    }
  };
  const numeric = { alert: true, type: "number", inputMode: "numeric" } as const;
  return (
    <FormPanel
      id="new-policy"
      heading="New policy"
      form={form}
      onSubmit={submit}
      submit="Create policy"
      busy="Creating…"
    >
      <Field
        id="policy-name"
        label="Policy name"
        {...form.input("name")}
        alert
        name="name"
        required
        maxLength={255}
      />
      <Field
        id="policy-max-machines"
        label="Policy max machines"
        {...form.input("max_machines")}
        {...numeric}
        name="max_machines"
        hint="Empty: machines are not counted."
      />
      <Field
        id="policy-max-ips"
        label="Policy max IPs"
        {...form.input("max_ips")}
        {...numeric}
        name="max_ips"
        hint="Empty: no address limit."
      />
      <Field
        id="policy-duration"
        label="Policy lasts (days)"
        {...form.input("duration_days")}
        {...numeric}
        name="duration_days"
        error={form.errorOf("duration_seconds")}
        hint="A new license expires this many days after it is made. Empty: never."
      />
      <div class="check">
        <input
          type="checkbox"
          id="policy-floating"
          checked={values.floating}
          onChange={(event) => form.set("floating", event.currentTarget.checked)}
        />
        <label for="policy-floating">
          Policy with floating seats{" "}
          <span class="hint">A machine keeps its seat only while it sends heartbeats.</span>
        </label>
      </div>
    </FormPanel>
  );
}
