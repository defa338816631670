// A new endpoint's signing secret, shown this once: depot can re-derive it but never shows it again.
import { useEffect, useRef } from "preact/hooks";
import { CopyField } from "../copy-field.tsx";
import type { NewWebhook } from "./api.ts";

export function CreatedWebhook({ webhook, onDone }: { webhook: NewWebhook; onDone: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);

  return (
    <section class="panel created" aria-labelledby="created-webhook-heading">
      <h2 id="created-webhook-heading" ref={heading} tabIndex={-1}>
        Endpoint created
      </h2>
      <p>
        Copy its signing secret now: it will not be shown again. Your receiver verifies each delivery with it.
      </p>
      <CopyField id="created-webhook-secret" label="Signing secret" value={webhook.secret} />
      <button type="button" class="secondary" onClick={onDone}>
        Done
      </button>
    </section>
  );
}
