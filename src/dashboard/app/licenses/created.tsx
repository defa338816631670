// The license just made, its key ready to copy and send to the customer.
import { useEffect, useRef } from "preact/hooks";
import { CopyField } from "../copy-field.tsx";
import type { License } from "./api.ts";

export function CreatedLicense({ license, onDone }: { license: License; onDone: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  // The form the reader was in is gone: start them at what replaced it.
  useEffect(() => heading.current?.focus(), []);

  return (
    <section class="panel created" aria-labelledby="created-license-heading">
      <h2 id="created-license-heading" ref={heading} tabIndex={-1}>
        License created for {license.owner.name}
      </h2>
      <p>Send this key to {license.owner.email}; it is also in the list below.</p>
      <CopyField id="created-license-key" label="New license key" value={license.key} />
      <button type="button" class="secondary" onClick={onDone}>
        Done
      </button>
    </section>
  );
}
