// A new license for a customer by e-mail, with an optional expiry, address limit and machine seats;
// a 422 shows beside the field it is about.

import { Field } from "../field.tsx";
import { useForm } from "../form.ts";
import { FormPanel } from "../form-panel.tsx";
import type { License, NewLicense, Policy } from "../wire.ts";
import { createLicense } from "./api.ts";
import { PolicySelect } from "./policy-select.tsx";
import { LicenseSettingsFields } from "./settings-fields.tsx";

/**
 * A date picked in the form means "until the end of that day" where the vendor is, so a license
 * set to expire on the 31st still works all through the 31st.
 */
export const endOfDay = (date: string) => new Date(`${date}T23:59:59.999`).toISOString();

export function NewLicenseForm({
  productId,
  policies,
  onCreated,
}: {
  productId: string;
  /** The product's policies, to make the license from one. */
  policies: Policy[];
  onCreated: (license: License) => void;
}) {
  const form = useForm(
    { owner_email: "", policy: "", expires: "", max_ips: "", max_machines: "", floating: false },
    { failure: "Creating the license failed." },
  );
  const { values } = form;

  const submit = async (event: Event) => {
    event.preventDefault();
    const body: NewLicense = { owner_email: values.owner_email.trim() };
    const { expires, max_ips } = values;
    // An unreadable date is sent as typed, for the server to name it.
    if (expires) body.expires = Number.isNaN(Date.parse(expires)) ? expires : endOfDay(expires);
    if (max_ips.trim()) body.max_ips = Number(max_ips);
    if (values.policy) body.policy = Number(values.policy);
    if (values.max_machines.trim()) body.max_machines = Number(values.max_machines);
    if (values.floating) body.floating = true;
    if (await form.run(async () => onCreated(await createLicense(productId, body)))) form.reset();
  };

  return (
    <FormPanel
      id="new-license"
      heading="New license"
      form={form}
      onSubmit={submit}
      submit="Create license"
      busy="Creating…"
    >
      <Field
        id="license-owner"
        label="Owner email"
        {...form.input("owner_email")}
        alert
        type="email"
        name="owner_email"
        required
        autocomplete="off"
        hint="The e-mail of a customer of this product's owner: someone who bought or holds a license of one of their products."
      />
      {policies.length > 0 && (
        <PolicySelect
          id={"license-policy"}
          policies={policies}
          value={values.policy}
          error={form.errorOf("policy")}
          onChange={(value) => form.set("policy", value)}
          hint="Optional: the license takes every setting left empty below from it, and follows it when it changes."
        />
      )}
      <LicenseSettingsFields
        form={form}
        id={(name) => `license-${name}`}
        hints={{
          expires: "Optional: the license works until the end of this day (your time). Empty: never expires.",
          max_ips:
            "Optional: how many addresses may use it at once (empty: no limit when machines are counted, else depot's default).",
          max_machines:
            "Optional: how many machines may be activated at once (empty: machines are not counted).",
          floating: "A machine keeps its seat only while it sends heartbeats (every 10 minutes).",
        }}
      />
    </FormPanel>
  );
}
