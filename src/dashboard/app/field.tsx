// A labelled input with its error under it: the input is marked invalid and described by the error
// (and by a hint, if it has one), ids `<id>-error` and `<id>-hint`.
import type { ComponentChildren, JSX } from "preact";

interface Props extends Omit<JSX.InputHTMLAttributes<HTMLInputElement>, "id" | "label"> {
  id: string;
  label: string;
  error: string | null;
  /** Marked invalid even when no error is shown here (e.g. it only repeats the form's alert). */
  invalid?: boolean;
  hint?: ComponentChildren;
  /** The error is announced as it appears. */
  alert?: boolean;
}

export function Field({ id, label, error, invalid, hint, alert, ...input }: Props) {
  const describedBy = [error && `${id}-error`, hint && `${id}-hint`].filter(Boolean).join(" ");
  return (
    <>
      <label for={id}>{label}</label>
      <input
        id={id}
        {...input}
        aria-invalid={error || invalid ? true : undefined}
        aria-describedby={describedBy || undefined}
      />
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
