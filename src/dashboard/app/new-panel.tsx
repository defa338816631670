// "New …": a button above a list that opens the form in a panel, with Cancel under it, rather than a
// form always open above the list. Opening it puts the cursor in the form's first input; the form
// closes the panel (`close`) once it is done.
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";

interface Props {
  /** The button's label: "New endpoint". */
  label: string;
  children: (close: () => void) => ComponentChildren;
}

export function NewPanel({ label, children }: Props) {
  const [open, setOpen] = useState(false);
  const frame = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (open) frame.current?.querySelector<HTMLElement>("input, select, textarea")?.focus();
  }, [open]);
  if (!open)
    return (
      <p>
        <button type="button" onClick={() => setOpen(true)}>
          {label}
        </button>
      </p>
    );
  const close = () => setOpen(false);
  return (
    <div class="panel-frame" ref={frame}>
      {children(close)}
      <button type="button" class="secondary" onClick={close}>
        Cancel
      </button>
    </div>
  );
}
