// The Policy choice of a license, new or existing: one of the product's policies, or none.
import { SelectField } from "../field.tsx";
import type { Policy } from "../wire.ts";

interface Props {
  id: string;
  policies: Policy[];
  /** The chosen policy's id as a string; "" for none. */
  value: string;
  error: string | null;
  onChange: (value: string) => void;
  hint: string;
}

export function PolicySelect({ id, policies, value, error, onChange, hint }: Props) {
  return (
    <SelectField
      id={id}
      label="Policy"
      error={error}
      alert
      name="policy"
      value={value}
      onChange={(event) => onChange(event.currentTarget.value)}
      hint={hint}
    >
      <option value="">None: its own settings</option>
      {policies.map((policy) => (
        <option key={policy.id} value={String(policy.id)}>
          {policy.name}
        </option>
      ))}
    </SelectField>
  );
}
