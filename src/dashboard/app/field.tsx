// Labelled form controls with their hint and error under them: the control is marked invalid and
// described by the error (and by the hint, if there is one), ids `<id>-error` and `<id>-hint`; a
// group of checkboxes is described by its own the same way.
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

interface Choice<Name extends string> {
  name: Name;
  /** What choosing it means, beside its name. */
  description: string;
}

interface CheckboxesProps<Name extends string> {
  /** The group's id, and the prefix of its hint's and error's. */
  id: string;
  legend: ComponentChildren;
  /** Each checkbox's name: the request field the choices fill. */
  name: string;
  /** The prefix of each checkbox's id: `<prefix>-<choice>`. */
  itemPrefix: string;
  choices: Choice<Name>[];
  chosen: Name[];
  onChange: (chosen: Name[]) => void;
  error: string | null;
  hint?: ComponentChildren;
}

/** A group of checkboxes, one per choice (its name as code, what it means as a hint), with the group's hint and error. */
export function Checkboxes<Name extends string>(props: CheckboxesProps<Name>) {
  const { id, legend, name, itemPrefix, choices, chosen, error, hint } = props;
  const toggle = (choice: Name, on: boolean) =>
    props.onChange(on ? [...chosen, choice] : chosen.filter((c) => c !== choice));
  return (
    <fieldset aria-describedby={ariaOf({ id, label: legend, error, hint })["aria-describedby"]}>
      <legend>{legend}</legend>
      {hint && (
        <p id={`${id}-hint`} class="hint">
          {hint}
        </p>
      )}
      {choices.map((choice) => (
        <div class="check" key={choice.name}>
          <input
            type="checkbox"
            id={`${itemPrefix}-${choice.name}`}
            name={name}
            value={choice.name}
            checked={chosen.includes(choice.name)}
            onChange={(event) => toggle(choice.name, event.currentTarget.checked)}
          />
          <label for={`${itemPrefix}-${choice.name}`}>
            <code>{choice.name}</code> <span class="hint">{choice.description}</span>
          </label>
        </div>
      ))}
      {error && (
        <p id={`${id}-error`} class="field-error" role="alert">
          {error}
        </p>
      )}
    </fieldset>
  );
}
