// The signed-in pages' sidebar: where to go (grouped by what the reader does), how many notifications
// are unread, and Sign out. On a phone it folds into a Menu button.
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { messageOf } from "./api.ts";
import { ErrorAlert } from "./error-alert.tsx";
import { Logo } from "./logo.tsx";
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
  ROLLOUTS_PATH,
  SOLD_LICENSES_PATH,
  STRIPE_PATH,
  TOKENS_PATH,
  USERS_PATH,
  VERSIONS_PATH,
  WEBHOOKS_PATH,
} from "./paths.ts";
import { navigate, usePath } from "./router.ts";
import { hasPermissions, isAdmin, seesPurchases, seesUsers, sells, signOut } from "./session.ts";
import type { User } from "./wire.ts";

interface NavItem {
  href: string;
  label: string;
  /** Whom the page is for; left out: everyone signed in. Pages (pages.ts) refuse the others the same way. */
  shows?: (user: User) => boolean;
}

/** The sidebar, grouped by what the reader does; a group with nothing for them is left out. */
export const NAV_GROUPS: { label: string | null; items: NavItem[] }[] = [
  { label: null, items: [{ href: HOME_PATH, label: "Home" }] },
  {
    label: "Sell",
    items: [
      { href: PRODUCTS_PATH, label: "Products", shows: sells },
      { href: SOLD_LICENSES_PATH, label: "Licenses", shows: sells },
      { href: PURCHASES_PATH, label: "Purchases", shows: seesPurchases },
    ],
  },
  // A vendor's endpoints hear of their versions; a customer's would only hear of what Notifications shows.
  {
    label: "Ship",
    items: [
      { href: VERSIONS_PATH, label: "Versions", shows: sells },
      { href: ROLLOUTS_PATH, label: "Rollouts", shows: sells },
      { href: WEBHOOKS_PATH, label: "Webhooks", shows: sells },
    ],
  },
  {
    label: "Admin",
    items: [
      { href: USERS_PATH, label: "Users", shows: seesUsers },
      { href: ROLES_PATH, label: "Roles", shows: isAdmin },
      { href: API_KEYS_PATH, label: "API keys", shows: isAdmin },
      { href: STRIPE_PATH, label: "Stripe", shows: isAdmin },
    ],
  },
  {
    label: "You",
    items: [
      // A seller's Licenses are the ones they sold (above); the ones they hold stay at this path.
      { href: LICENSES_PATH, label: "Licenses", shows: (user) => !sells(user) },
      { href: DOWNLOADS_PATH, label: "Downloads" },
      { href: NOTIFICATIONS_PATH, label: "Notifications" },
      { href: TOKENS_PATH, label: "Tokens", shows: hasPermissions },
      { href: PROFILE_PATH, label: "Profile" },
    ],
  },
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

export function Sidebar({ user, onSignedOut }: { user: User; onSignedOut: () => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // The phone's menu: closed on every page, opened by its button (the sidebar shows it always on a wide screen).
  const [open, setOpen] = useState(false);
  const path = usePath();
  useEffect(() => setOpen(false), [path]);

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

  const groups = NAV_GROUPS.map((group) => ({
    ...group,
    items: group.items.filter((item) => item.shows?.(user) ?? true),
  })).filter((group) => group.items.length > 0);

  return (
    <header class={open ? "sidebar open" : "sidebar"}>
      <div class="sidebar-top">
        <span class="brand">
          <Logo /> depot
        </span>
        <UnreadBadge />
        <button
          type="button"
          class="secondary menu-button"
          aria-expanded={open}
          aria-controls="sidebar-menu"
          onClick={() => setOpen(!open)}
        >
          Menu
        </button>
      </div>
      <div id="sidebar-menu" class="sidebar-menu">
        <nav aria-label="Dashboard">
          {groups.map((group) => (
            <div key={group.label ?? "home"} class="nav-group">
              {group.label && (
                <p class="nav-group-label" id={`nav-${group.label}`}>
                  {group.label}
                </p>
              )}
              <ul aria-labelledby={group.label ? `nav-${group.label}` : undefined}>
                {group.items.map((link) => (
                  <li key={link.href}>
                    <NavLink href={link.href}>{link.label}</NavLink>
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </nav>
        <p class="signed-in-as">
          <bdi>{user.name}</bdi> <span class="hint">({user.role.name})</span>
        </p>
        <button type="button" class="secondary" onClick={leave} disabled={busy}>
          Sign out
        </button>
        <ErrorAlert message={error} />
      </div>
    </header>
  );
}
