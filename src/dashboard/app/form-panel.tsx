// The frame of a form in a panel of its own, as the "New …" forms are: a heading that names the
// form, the refusal's message under it, the inputs, and a submit button that says when it is busy.
import type { ComponentChildren } from "preact";
import { ErrorAlert } from "./error-alert.tsx";

interface Props {
  /** The heading's id is `<id>-heading`; it names the form. */
  id: string;
  heading: string;
  /** The form hook's state (form.ts). */
  form: { busy: boolean; summary: string | null };
  onSubmit: (event: Event) => void;
  /** The button's label, and what it says while the request runs. */
  submit: string;
  busy: string;
  children: ComponentChildren;
}

export function FormPanel({ id, heading, form, onSubmit, submit, busy, children }: Props) {
  return (
    <form onSubmit={onSubmit} aria-labelledby={`${id}-heading`} class="panel" noValidate>
      <h2 id={`${id}-heading`}>{heading}</h2>
      <ErrorAlert message={form.summary} />
      {children}
      <button type="submit" disabled={form.busy}>
        {form.busy ? busy : submit}
      </button>
    </form>
  );
}
