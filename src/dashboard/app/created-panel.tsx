// What a form just made, shown in the form's place: a user, a license, or a secret shown this once (a
// token, an API key, a webhook's signing secret: the server keeps only what cannot show it again).
// Focus moves to its heading, since the form the reader was in is gone.
import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";
import { CopyField } from "./copy-field.tsx";

interface Props {
  /** The heading's id is `<id>-heading`. */
  id: string;
  heading: ComponentChildren;
  children: ComponentChildren;
  onDone: () => void;
}

export function CreatedPanel({ id, heading, children, onDone }: Props) {
  const title = useRef<HTMLHeadingElement>(null);
  useEffect(() => title.current?.focus(), []);

  return (
    <section class="panel created" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`} ref={title} tabIndex={-1}>
        {heading}
      </h2>
      {children}
      <button type="button" class="secondary" onClick={onDone}>
        Done
      </button>
    </section>
  );
}

interface ShownOnceProps {
  /** The copy field's id; the heading's is `<id>-heading`. */
  id: string;
  heading: ComponentChildren;
  label: string;
  value: string;
  /** What to do with the value; by default, copy it now. */
  note?: ComponentChildren;
  onDone: () => void;
}

/** A value to copy from a panel: a secret shown this once unless `note` says otherwise. */
export function ShownOnce({ id, heading, label, value, note, onDone }: ShownOnceProps) {
  return (
    <CreatedPanel id={id} heading={heading} onDone={onDone}>
      <p>{note ?? "Copy it now: it will not be shown again."}</p>
      <CopyField id={id} label={label} value={value} />
    </CreatedPanel>
  );
}
