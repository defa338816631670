// A new token, shown this once: the server keeps only its hash, so leaving the page loses it.
import { useEffect, useRef } from "preact/hooks";
import { CopyField } from "../copy-field.tsx";
import type { NewToken } from "./api.ts";

export function CreatedToken({ token, onDone }: { token: NewToken; onDone: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  // The form the reader was in is gone: start them at what replaced it.
  useEffect(() => heading.current?.focus(), []);

  return (
    <section class="panel created" aria-labelledby="created-heading">
      <h2 id="created-heading" ref={heading} tabIndex={-1}>
        Token “{token.name}” created
      </h2>
      <p>Copy it now: it will not be shown again.</p>
      <CopyField id="created-token" label="Your new token" value={token.token} />
      <button type="button" class="secondary" onClick={onDone}>
        Done
      </button>
    </section>
  );
}
