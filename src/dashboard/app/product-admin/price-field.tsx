// A price input, as an option's list price and a recorded purchase both take it: never negative,
// in cents at the finest (the server refuses a third decimal by name).
import { Field } from "../field.tsx";
import type { BoundInput } from "../form.ts";

interface Props extends BoundInput {
  id: string;
  label: string;
}

export function PriceField(props: Props) {
  return <Field {...props} alert required type="number" inputMode="decimal" min="0" step="0.01" />;
}
