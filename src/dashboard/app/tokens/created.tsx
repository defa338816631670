// A new token, shown this once: the server keeps only its hash, so leaving the page loses it.
import { useEffect, useRef, useState } from "preact/hooks";
import type { NewToken } from "./api.ts";

export function CreatedToken({ token, onDone }: { token: NewToken; onDone: () => void }) {
  const field = useRef<HTMLInputElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  // The form the reader was in is gone: start them at what replaced it.
  useEffect(() => heading.current?.focus(), []);
  const [copied, setCopied] = useState<"copied" | "failed" | null>(null);

  const copy = async () => {
    try {
      // Missing without a secure context (plain http on another host): the fallback below says what to do.
      if (!navigator.clipboard) throw new Error("no clipboard");
      await navigator.clipboard.writeText(token.token);
      setCopied("copied");
    } catch {
      field.current?.select();
      setCopied("failed");
    }
  };

  return (
    <section class="panel created" aria-labelledby="created-heading">
      <h2 id="created-heading" ref={heading} tabIndex={-1}>
        Token “{token.name}” created
      </h2>
      <p>Copy it now: it will not be shown again.</p>
      <label for="created-token">Your new token</label>
      <div class="copy-row">
        <input
          id="created-token"
          ref={field}
          readOnly
          value={token.token}
          spellcheck={false}
          onFocus={(event) => event.currentTarget.select()}
        />
        <button type="button" onClick={copy}>
          Copy
        </button>
      </div>
      <p aria-live="polite" class="hint">
        {copied === "copied" && "Copied to the clipboard."}
        {copied === "failed" &&
          "Could not copy: the token is selected, press Ctrl+C (⌘C on a Mac) to copy it."}
      </p>
      <button type="button" class="secondary" onClick={onDone}>
        Done
      </button>
    </section>
  );
}
