// The license API keys: name, whose licenses they act for, when made and last used, and Revoke.
import { CredentialRow } from "../credential-row.tsx";
import type { More } from "../listing.ts";
import { ShowMore } from "../show-more.tsx";
import type { ApiKey } from "../wire.ts";

interface Props {
  keys: ApiKey[];
  more: More;
  revoking: number | null;
  onRevoke: (key: ApiKey) => void;
}

export function ApiKeyList({ keys, more, revoking, onRevoke }: Props) {
  if (keys.length === 0) {
    return (
      <p class="empty">No API keys yet. Create one with New API key for a storefront or a license server.</p>
    );
  }
  return (
    <>
      <ul class="rows">
        {keys.map((key) => (
          <CredentialRow
            key={key.id}
            name={key.name}
            scope={
              key.creator_id === null ? (
                "All creators' licenses"
              ) : (
                <>
                  Only the licenses of <bdi>{key.creator_name ?? `user ${key.creator_id}`}</bdi>
                </>
              )
            }
            createdAt={key.created_at}
            lastUsedAt={key.last_used_at}
            revoking={revoking === key.id}
            onRevoke={() => onRevoke(key)}
          />
        ))}
      </ul>
      <ShowMore more={more} noun="keys" />
    </>
  );
}
