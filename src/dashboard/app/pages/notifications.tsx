import { useState } from "preact/hooks";
import { messageOf } from "../api.ts";
import { ErrorAlert } from "../error-alert.tsx";
import { Layout } from "../layout.tsx";
import { useListing } from "../listing.ts";
import { Loaded } from "../loaded.tsx";
import { NavLink } from "../nav.tsx";
import { listNotifications, markAllRead, markRead } from "../notifications/api.ts";
import { NotificationList } from "../notifications/list.tsx";
import type { PageProps } from "../pages.ts";
import { DOWNLOADS_PATH } from "../paths.ts";
import { ShowMore } from "../show-more.tsx";
import type { Notification } from "../wire.ts";

/** New versions of what the user holds, newest first; marking them read updates the badge. */
export function Notifications({ user, onSignedOut }: PageProps) {
  const { loading, reload, update, more } = useListing(
    listNotifications,
    "The notifications could not be loaded.",
  );
  /** A notification's id, "all", or null. */
  const [marking, setMarking] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  /** Marks one read where it is listed, so the pages shown stay; all read, the first page again. */
  const mark = async (id: string, action: () => Promise<void>) => {
    setMarking(id);
    setError(null);
    try {
      await action();
      if (id === "all") await reload();
      else
        update((shown) => ({
          ...shown,
          items: shown.items.map((n) => (n.id === id ? { ...n, read_at: new Date().toISOString() } : n)),
        }));
    } catch (failure) {
      setError(messageOf(failure, "Marking as read failed."));
      await reload();
    }
    setMarking(null);
  };

  return (
    <Layout user={user} title="Notifications" onSignedOut={onSignedOut}>
      <section aria-label="Your notifications" aria-busy={loading.state === "loading"}>
        <Loaded loading={loading} label="Loading notifications…">
          {({ items: notifications }) => {
            if (notifications.length === 0) {
              return (
                <p class="empty">
                  No notifications yet. When a product you hold gets a new version, it is announced here; all
                  your files are on <NavLink href={DOWNLOADS_PATH}>Downloads</NavLink>.
                </p>
              );
            }
            const unread = notifications.filter((n) => n.read_at === null).length;
            return (
              <>
                <div class="notifications-bar">
                  <p>{unread === 0 ? "All read." : `${unread} unread.`}</p>
                  <button
                    type="button"
                    class="secondary"
                    onClick={() => mark("all", markAllRead)}
                    disabled={unread === 0 || marking !== null}
                  >
                    {marking === "all" ? "Marking…" : "Mark all as read"}
                  </button>
                </div>
                <ErrorAlert message={error} />
                <NotificationList
                  notifications={notifications}
                  marking={marking}
                  onMarkRead={(n: Notification) => mark(n.id, () => markRead(n))}
                />
                <ShowMore more={more} noun="notifications" />
              </>
            );
          }}
        </Loaded>
      </section>
    </Layout>
  );
}
