// A secret shown this once (a token, an API key): the server keeps only its hash, so leaving the
// page loses it. Focus moves to its heading, since the form the reader was in is gone.
import { useEffect, useRef } from "preact/hooks";
import { CopyField } from "./copy-field.tsx";

interface Props {
  /** The copy field's id; the heading's is `<id>-heading`. */
  id: string;
  heading: string;
  label: string;
  value: string;
  onDone: () => void;
}

export function ShownOnce({ id, heading, label, value, onDone }: Props) {
  const title = useRef<HTMLHeadingElement>(null);
  useEffect(() => title.current?.focus(), []);

  return (
    <section class="panel created" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`} ref={title} tabIndex={-1}>
        {heading}
      </h2>
      <p>Copy it now: it will not be shown again.</p>
      <CopyField id={id} label={label} value={value} />
      <button type="button" class="secondary" onClick={onDone}>
        Done
      </button>
    </section>
  );
}
