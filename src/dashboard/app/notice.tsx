// What a change that worked says: a notice the reader closes when they have read it (it stays until
// then, or until the next change says something else).
import type { ComponentChildren } from "preact";

export function SuccessNotice({
  children,
  onDismiss,
}: {
  children: ComponentChildren;
  onDismiss: () => void;
}) {
  return (
    <div class="notice success dismissible" role="status">
      <p>{children}</p>
      <button type="button" class="secondary" onClick={onDismiss}>
        Dismiss
      </button>
    </div>
  );
}
