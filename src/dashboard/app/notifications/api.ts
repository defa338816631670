// The signed-in user's notifications (docs/vendors.md, Notifications): listing them and marking them read.
import { post } from "../api.ts";
import { type Listing, listing } from "../listing.ts";
import { notificationsChanged } from "../notifications.ts";
import type { Notification } from "../wire.ts";

/** The newest first. */
export const listNotifications = (): Promise<Listing<Notification>> => listing("/api/notifications");

/** Marks one read; the navigation's badge counts again. */
export async function markRead(notification: Notification): Promise<void> {
  await post(`/api/notifications/${notification.id}/read`);
  notificationsChanged();
}

export async function markAllRead(): Promise<void> {
  await post("/api/notifications/read-all");
  notificationsChanged();
}
