// The settings a license has wherever it is edited, in the new-license form and under an existing
// license: its expiry, its address limit, its machine seats and whether those float. Each form
// gives the ids (`id("max-ips")`) and the hints that fit it.

import { Field } from "../field.tsx";
import type { BoundInput } from "../form.ts";

/** What of a form these fields use (useForm's result has it). */
interface SettingsForm {
  input: (name: "expires" | "max_ips" | "max_machines") => BoundInput;
  values: { floating: boolean };
  set: (name: "floating", value: boolean) => void;
  errorOf: (name: string) => string | null;
}

type Hints = Record<"expires" | "max_ips" | "max_machines" | "floating", string>;

export function LicenseSettingsFields({
  form,
  id,
  hints,
}: {
  form: SettingsForm;
  id: (name: string) => string;
  hints: Hints;
}) {
  const numeric = { alert: true, type: "number", inputMode: "numeric", max: 10000 } as const;
  return (
    <>
      <Field
        id={id("expires")}
        label="Expires"
        {...form.input("expires")}
        alert
        type="date"
        name="expires"
        hint={hints.expires}
      />
      <Field
        id={id("max-ips")}
        label="Max IPs"
        {...form.input("max_ips")}
        {...numeric}
        min={1}
        name="max_ips"
        hint={hints.max_ips}
      />
      <Field
        id={id("max-machines")}
        label="Max machines"
        {...form.input("max_machines")}
        {...numeric}
        min={0}
        name="max_machines"
        hint={hints.max_machines}
      />
      <div class="check">
        <input
          type="checkbox"
          id={id("floating")}
          checked={form.values.floating}
          onChange={(event) => form.set("floating", event.currentTarget.checked)}
        />
        <label for={id("floating")}>
          Floating seats <span class="hint">{hints.floating}</span>
        </label>
      </div>
      {form.errorOf("floating") && (
        <p class="field-error" role="alert">
          {form.errorOf("floating")}
        </p>
      )}
    </>
  );
}
