// The signed-in pages' top bar: where to go, how many notifications are unread, and Sign out.
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { messageOf } from "./api.ts";
import { ErrorAlert } from "./error-alert.tsx";
import { onNotificationsChanged, unreadBadge } from "./notifications.ts";
import {
  API_KEYS_PATH,
  DOWNLOADS_PATH,
  HOME_PATH,
  LICENSES_PATH,
  NOTIFICATIONS_PATH,
  PRODUCTS_PATH,
  PROFILE_PATH,
  PURCHASES_PATH,
  ROLES_PATH,
  STRIPE_PATH,
  TOKENS_PATH,
  USERS_PATH,
  WEBHOOKS_PATH,
} from "./paths.ts";
import { navigate, usePath } from "./router.ts";
import { can, isAdmin, signOut } from "./session.ts";
import type { User } from "./wire.ts";

/** The top bar's links in order; `shows` hides a link from whom the page has nothing for. */
const LINKS: { href: string; label: string; shows?: (user: User) => boolean }[] = [
  { href: HOME_PATH, label: "Home" },
  { href: LICENSES_PATH, label: "Licenses" },
  { href: DOWNLOADS_PATH, label: "Downloads" },
  { href: NOTIFICATIONS_PATH, label: "Notifications" },
  { href: PURCHASES_PATH, label: "Purchases" },
  {
    href: PRODUCTS_PATH,
    label: "Products",
    shows: (user) => can(user, "versions.publish") || can(user, "products.manage"),
  },
  // Everyone: a holder's endpoints hear of their products' versions as an owner's do.
  { href: WEBHOOKS_PATH, label: "Webhooks" },
  { href: USERS_PATH, label: "Users", shows: isAdmin },
  { href: ROLES_PATH, label: "Roles", shows: isAdmin },
  { href: API_KEYS_PATH, label: "API keys", shows: isAdmin },
  { href: STRIPE_PATH, label: "Stripe", shows: isAdmin },
  { href: TOKENS_PATH, label: "Tokens" },
  { href: PROFILE_PATH, label: "Profile" },
];

/**
 * A link the router follows without reloading; a modified click (new tab…) is left to the browser.
 * It is the current page's link at `href` and below it (a product's page is under Products).
 */
export function NavLink({ href, children }: { href: string; children: ComponentChildren }) {
  const path = usePath();
  const current = path === href || (href !== "/" && path.startsWith(`${href}/`));
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
    const read = () => unreadBadge().then(setBadge, () => setBadge(null));
    void read();
    // Marking notifications read on any page counts again.
    return onNotificationsChanged(read);
  }, []);
  if (!badge) return null;
  return (
    <span class="badge" title="Unread notifications">
      {badge}
      <span class="visually-hidden"> unread notifications</span>
    </span>
  );
}

export function TopNav({ user, onSignedOut }: { user: User; onSignedOut: () => void }) {
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
          {LINKS.filter((link) => link.shows?.(user) ?? true).map((link) => (
            <li key={link.href}>
              <NavLink href={link.href}>{link.label}</NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <UnreadBadge />
      <button type="button" class="secondary" onClick={leave} disabled={busy}>
        Sign out
      </button>
      <ErrorAlert message={error} />
    </header>
  );
}
