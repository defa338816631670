// A read-only value with a Copy button: a new token, a webhook secret, a license key, a link. Without
// a clipboard (plain http on another host leaves navigator.clipboard undefined) the value is selected
// and the reader is told how to copy it.
import type { ComponentChildren } from "preact";
import { useRef, useState } from "preact/hooks";

interface Props {
  id: string;
  label: ComponentChildren;
  value: string;
}

export function CopyField({ id, label, value }: Props) {
  const field = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<"copied" | "failed" | null>(null);

  const copy = async () => {
    try {
      if (!navigator.clipboard) throw new Error("no clipboard");
      await navigator.clipboard.writeText(value);
      setCopied("copied");
    } catch {
      field.current?.select();
      setCopied("failed");
    }
  };

  return (
    <>
      <label for={id}>{label}</label>
      <div class="copy-row">
        <input
          id={id}
          ref={field}
          readOnly
          value={value}
          spellcheck={false}
          onFocus={(event) => event.currentTarget.select()}
        />
        <button type="button" onClick={copy} aria-describedby={`${id}-copied`}>
          Copy
        </button>
      </div>
      <p id={`${id}-copied`} aria-live="polite" class="hint">
        {copied === "copied" && "Copied to the clipboard."}
        {copied === "failed" && "Could not copy: it is selected, press Ctrl+C (⌘C on a Mac) to copy it."}
      </p>
    </>
  );
}
