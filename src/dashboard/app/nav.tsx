// The signed-in pages' top bar: where to go, how many notifications are unread, and Sign out.
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { messageOf } from "./api.ts";
import { unreadBadge } from "./notifications.ts";
import { HOME_PATH, PROFILE_PATH, TOKENS_PATH } from "./paths.ts";
import { navigate, usePath } from "./router.ts";
import { signOut } from "./session.ts";

/** A link the router follows without reloading; a modified click (new tab…) is left to the browser. */
function NavLink({ href, children }: { href: string; children: ComponentChildren }) {
  const current = usePath() === href;
  return (
    <a
      href={href}
      aria-current={current ? "page" : undefined}
      onClick={(event) => {
        if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        navigate(href);
      }}
    >
      {children}
    </a>
  );
}

function UnreadBadge() {
  const [badge, setBadge] = useState<string | null>(null);
  useEffect(() => {
    // A badge is a nicety: if the count cannot be read, the bar simply shows none.
    unreadBadge().then(setBadge, () => setBadge(null));
  }, []);
  if (!badge) return null;
  return (
    <span class="badge" title="Unread notifications">
      {badge}
      <span class="visually-hidden"> unread notifications</span>
    </span>
  );
}

export function TopNav({ onSignedOut }: { onSignedOut: () => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const leave = async () => {
    setBusy(true);
    setError(null);
    try {
      await signOut();
      onSignedOut();
    } catch (failure) {
      setError(messageOf(failure, "Signing out failed."));
      setBusy(false);
    }
  };

  return (
    <header class="topbar">
      <span class="brand">depot</span>
      <nav aria-label="Dashboard">
        <ul>
          <li>
            <NavLink href={HOME_PATH}>Home</NavLink>
          </li>
          <li>
            <NavLink href={TOKENS_PATH}>Tokens</NavLink>
          </li>
          <li>
            <NavLink href={PROFILE_PATH}>Profile</NavLink>
          </li>
        </ul>
      </nav>
      <UnreadBadge />
      <button type="button" class="secondary" onClick={leave} disabled={busy}>
        Sign out
      </button>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </header>
  );
}
