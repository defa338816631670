// A credential in a list (a personal access token, an API key): its name, what it acts for, when it
// was made and last used, and its Revoke button.
import type { ComponentChildren } from "preact";
import { formatDate } from "./dates.ts";

interface Props {
  name: string;
  /** What it may do or whose data it reaches, in a few words. */
  scope: ComponentChildren;
  createdAt: string;
  lastUsedAt: string | null;
  revoking: boolean;
  onRevoke: () => void;
}

export function CredentialRow({ name, scope, createdAt, lastUsedAt, revoking, onRevoke }: Props) {
  return (
    <li class="row">
      <div class="row-main">
        <strong class="row-name" dir="auto">
          {name}
        </strong>
        <span class="hint">{scope}</span>
        <span class="hint">
          Created <time dateTime={createdAt}>{formatDate(createdAt)}</time>
          {" · "}
          {lastUsedAt ? (
            <>
              Last used <time dateTime={lastUsedAt}>{formatDate(lastUsedAt)}</time>
            </>
          ) : (
            "Never used"
          )}
        </span>
      </div>
      <button
        type="button"
        class="danger"
        onClick={onRevoke}
        disabled={revoking}
        aria-label={`Revoke ${name}`}
      >
        {revoking ? "Revoking…" : "Revoke"}
      </button>
    </li>
  );
}
