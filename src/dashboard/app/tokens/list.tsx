// The user's tokens with their abilities, when each was made and last used, and Revoke (after a confirm).
import { CredentialRow } from "../credential-row.tsx";
import type { More } from "../listing.ts";
import { ShowMore } from "../show-more.tsx";
import type { Token } from "../wire.ts";

interface Props {
  tokens: Token[];
  more: More;
  revoking: number | null;
  onRevoke: (token: Token) => void;
}

export function TokenList({ tokens, more, revoking, onRevoke }: Props) {
  if (tokens.length === 0) {
    return <p class="empty">No tokens yet. Create one with New token for a CI job or a script.</p>;
  }
  return (
    <>
      <ul class="rows">
        {tokens.map((token) => (
          <CredentialRow
            key={token.id}
            name={token.name}
            scope={token.abilities.length > 0 ? token.abilities.join(", ") : "no abilities"}
            createdAt={token.created_at}
            lastUsedAt={token.last_used_at}
            revoking={revoking === token.id}
            onRevoke={() => onRevoke(token)}
          />
        ))}
      </ul>
      <ShowMore more={more} noun="tokens" />
    </>
  );
}
