// A labelled select with its error under it, as Field is for inputs: marked invalid and described
// by the error (and by a hint), ids `<id>-error` and `<id>-hint`.
import type { ComponentChildren, JSX } from "preact";

interface Props extends Omit<JSX.SelectHTMLAttributes<HTMLSelectElement>, "id" | "label"> {
  id: string;
  label: string;
  error: string | null;
  hint?: ComponentChildren;
  /** The error is announced as it appears. */
  alert?: boolean;
  children: ComponentChildren;
}

export function SelectField({ id, label, error, hint, alert, children, ...select }: Props) {
  const describedBy = [error && `${id}-error`, hint && `${id}-hint`].filter(Boolean).join(" ");
  return (
    <>
      <label for={id}>{label}</label>
      <select
        id={id}
        {...select}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy || undefined}
      >
        {children}
      </select>
      {hint && (
        <p id={`${id}-hint`} class="hint">
          {hint}
        </p>
      )}
      {error && (
        <p id={`${id}-error`} class="field-error" role={alert ? "alert" : undefined}>
          {error}
        </p>
      )}
    </>
  );
}
