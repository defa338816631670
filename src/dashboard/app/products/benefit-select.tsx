// Where a version goes: the whole product, or one benefit of one of its options (a benefit's version
// reaches only the buyers of that option). Shown only when the product has benefits.

import { isolated } from "../bidi.ts";
import { SelectField } from "../field.tsx";
import type { Option } from "../wire.ts";

interface Props {
  id: string;
  options: Option[];
  /** A benefit's id, or "" for the whole product. */
  value: string;
  error: string | null;
  disabled: boolean;
  onChange: (value: string) => void;
}

export function BenefitSelect({ id, options, value, error, disabled, onChange }: Props) {
  if (!options.some((option) => option.benefits.length > 0)) return null;
  return (
    <SelectField
      id={id}
      label="Benefit"
      error={error}
      alert
      disabled={disabled}
      hint="A benefit's version is downloaded only by those who bought its option."
      value={value}
      onChange={(event) => onChange(event.currentTarget.value)}
    >
      <option value="">Whole product</option>
      {options.flatMap((option) =>
        option.benefits.map((benefit) => (
          <option key={benefit.id} value={String(benefit.id)}>
            {isolated(benefit.name)} ({isolated(option.name)})
          </option>
        )),
      )}
    </SelectField>
  );
}
