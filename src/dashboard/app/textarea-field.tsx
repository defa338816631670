// A labelled textarea with its error and hint under it, marked up as Field marks up an input.
import type { ComponentChildren, JSX } from "preact";

interface Props extends Omit<JSX.TextareaHTMLAttributes<HTMLTextAreaElement>, "id" | "label"> {
  id: string;
  label: string;
  error: string | null;
  hint?: ComponentChildren;
}

export function TextAreaField({ id, label, error, hint, ...textarea }: Props) {
  const describedBy = [error && `${id}-error`, hint && `${id}-hint`].filter(Boolean).join(" ");
  return (
    <>
      <label for={id}>{label}</label>
      <textarea
        id={id}
        {...textarea}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy || undefined}
      />
      {hint && (
        <p id={`${id}-hint`} class="hint">
          {hint}
        </p>
      )}
      {error && (
        <p id={`${id}-error`} class="field-error">
          {error}
        </p>
      )}
    </>
  );
}
