// The user's tokens with when each was made and last used, and a Revoke button (after a confirm).
import { formatDate } from "../dates.ts";
import type { Token } from "./api.ts";

interface Props {
  tokens: Token[];
  /** More than one page exists: only the newest are listed. */
  more: boolean;
  revoking: number | null;
  onRevoke: (token: Token) => void;
}

export function TokenList({ tokens, more, revoking, onRevoke }: Props) {
  if (tokens.length === 0) {
    return <p class="empty">No tokens yet. Create one above for a CI job or a script.</p>;
  }
  return (
    <>
      <ul class="rows">
        {tokens.map((token) => (
          <li key={token.id} class="row">
            <div class="row-main">
              <strong class="row-name">{token.name}</strong>
              <span class="hint">
                {token.abilities.length > 0 ? token.abilities.join(", ") : "no abilities"}
              </span>
              <span class="hint">
                Created <time dateTime={token.created_at}>{formatDate(token.created_at)}</time>
                {" · "}
                {token.last_used_at ? (
                  <>
                    Last used <time dateTime={token.last_used_at}>{formatDate(token.last_used_at)}</time>
                  </>
                ) : (
                  "Never used"
                )}
              </span>
            </div>
            <button
              type="button"
              class="danger"
              onClick={() => onRevoke(token)}
              disabled={revoking === token.id}
              aria-label={`Revoke ${token.name}`}
            >
              {revoking === token.id ? "Revoking…" : "Revoke"}
            </button>
          </li>
        ))}
      </ul>
      {more && <p class="hint">Only the newest {tokens.length} tokens are listed.</p>}
    </>
  );
}
