// The license API keys: name, whose licenses they act for, when made and last used, and Revoke.
import { formatDate } from "../dates.ts";
import type { ApiKey } from "./api.ts";

interface Props {
  keys: ApiKey[];
  more: boolean;
  revoking: number | null;
  onRevoke: (key: ApiKey) => void;
}

export function ApiKeyList({ keys, more, revoking, onRevoke }: Props) {
  if (keys.length === 0) {
    return <p class="empty">No API keys yet. Create one above for a storefront or a license server.</p>;
  }
  return (
    <>
      <ul class="rows">
        {keys.map((key) => (
          <li key={key.id} class="row">
            <div class="row-main">
              <strong class="row-name">{key.name}</strong>
              <span class="hint">
                {key.creator_id === null
                  ? "All creators' licenses"
                  : `Only the licenses of ${key.creator_name ?? `user ${key.creator_id}`}`}
              </span>
              <span class="hint">
                Created <time dateTime={key.created_at}>{formatDate(key.created_at)}</time>
                {" · "}
                {key.last_used_at ? (
                  <>
                    Last used <time dateTime={key.last_used_at}>{formatDate(key.last_used_at)}</time>
                  </>
                ) : (
                  "Never used"
                )}
              </span>
            </div>
            <button
              type="button"
              class="danger"
              onClick={() => onRevoke(key)}
              disabled={revoking === key.id}
              aria-label={`Revoke ${key.name}`}
            >
              {revoking === key.id ? "Revoking…" : "Revoke"}
            </button>
          </li>
        ))}
      </ul>
      {more && <p class="hint">Only the newest {keys.length} keys are listed.</p>}
    </>
  );
}
