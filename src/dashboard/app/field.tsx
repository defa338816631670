// Labelled form controls with their hint and error under them: the control is marked invalid and
// described by the error (and by the hint, if there is one), ids `<id>-error` and `<id>-hint`.
import type { ComponentChildren, JSX } from "preact";

interface Framing {
  id: string;
  label: ComponentChildren;
  error: string | null;
  /** Marked invalid even when no error is shown here (e.g. it only repeats the form's alert). */
  invalid?: boolean;
  hint?: ComponentChildren;
  /** The error is announced as it appears. */
  alert?: boolean;
}

/** Props of a control framed by a label, a hint and an error: its own attributes but the id. */
type Framed<Attributes> = Omit<Attributes, "id" | "label"> & Framing;

/** The label above the control, the hint and the error below, and the aria attributes tying them. */
function Frame({ id, label, error, hint, alert, control }: Framing & { control: JSX.Element }) {
  return (
    <>
      <label for={id}>{label}</label>
      {control}
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

const ariaOf = ({ id, error, invalid, hint }: Framing) => ({
  "aria-invalid": error || invalid ? true : undefined,
  "aria-describedby": [error && `${id}-error`, hint && `${id}-hint`].filter(Boolean).join(" ") || undefined,
});

/** A control's props parted into its framing and the attributes left for the control itself. */
function parted<P extends Framing>({ id, label, error, invalid, hint, alert, ...control }: P) {
  return [{ id, label, error, invalid, hint, alert }, control] as const;
}

export function Field(props: Framed<JSX.InputHTMLAttributes<HTMLInputElement>>) {
  const [framing, input] = parted(props);
  return <Frame {...framing} control={<input id={framing.id} {...input} {...ariaOf(framing)} />} />;
}

export function SelectField(props: Framed<JSX.SelectHTMLAttributes<HTMLSelectElement>>) {
  const [framing, { children, ...select }] = parted(props);
  return (
    <Frame
      {...framing}
      control={
        <select id={framing.id} {...select} {...ariaOf(framing)}>
          {children}
        </select>
      }
    />
  );
}

export function TextAreaField(props: Framed<JSX.TextareaHTMLAttributes<HTMLTextAreaElement>>) {
  const [framing, textarea] = parted(props);
  return <Frame {...framing} control={<textarea id={framing.id} {...textarea} {...ariaOf(framing)} />} />;
}
