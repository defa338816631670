// A new token, shown this once: the server keeps only its hash, so leaving the page loses it.
import { ShownOnce } from "../shown-once.tsx";
import type { NewToken } from "./api.ts";

export function CreatedToken({ token, onDone }: { token: NewToken; onDone: () => void }) {
  return (
    <ShownOnce
      id="created-token"
      heading={`Token “${token.name}” created`}
      label="Your new token"
      value={token.token}
      onDone={onDone}
    />
  );
}
