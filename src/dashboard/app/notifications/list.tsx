// The notifications, newest first: unread ones marked (in words, not only by weight), each with the
// product and version it is about, a Download link and "Mark as read".
import { formatDate } from "../dates.ts";
import { sessionDownloadHref } from "../links.ts";
import type { Notification } from "../wire.ts";
import { YankedMark } from "../yanked.tsx";

interface Props {
  notifications: Notification[];
  /** The notification being marked, if any. */
  marking: string | null;
  onMarkRead: (notification: Notification) => void;
}

export function NotificationList({ notifications, marking, onMarkRead }: Props) {
  return (
    <ul class="rows">
      {notifications.map((notification) => {
        const { data } = notification;
        const what = `${data.product_name}${data.benefit_name ? ` (${data.benefit_name})` : ""} ${data.version_number}`;
        const unread = notification.read_at === null;
        return (
          <li key={notification.id} class={unread ? "row notification unread" : "row notification"}>
            <div class="row-main">
              <span>
                {unread && <span class="unread-mark">Unread</span>}
                <strong>
                  <bdi>{data.product_name}</bdi>
                  {data.benefit_name && (
                    <>
                      {" ("}
                      <bdi>{data.benefit_name}</bdi>)
                    </>
                  )}{" "}
                  <bdi>{data.version_number}</bdi>
                </strong>
                : <bdi>{data.title}</bdi>
              </span>
              <span class="hint">
                {notification.type === "version.yanked" ? (
                  <>
                    <YankedMark version={{ status: "yanked", yank_reason: data.yank_reason ?? null }} />{" "}
                  </>
                ) : (
                  "New version published "
                )}
                <time dateTime={notification.created_at}>{formatDate(notification.created_at)}</time>
              </span>
            </div>
            <div class="row-actions">
              <a href={sessionDownloadHref(data.download_url)} download>
                Download <span class="visually-hidden">{what}</span>
              </a>
              {unread && (
                <button
                  type="button"
                  class="secondary"
                  onClick={() => onMarkRead(notification)}
                  disabled={marking === notification.id}
                >
                  {marking === notification.id ? "Marking…" : "Mark as read"}
                  <span class="visually-hidden">: {what}</span>
                </button>
              )}
            </div>
          </li>
        );
      })}
    </ul>
  );
}
