// How many unread notifications the signed-in user has, for the navigation's badge.
import { get } from "./api.ts";

/** GET /api/notifications pages without a total, so one page of 100 is counted: 100 and more is "99+". */
const COUNTED = 100;

interface UnreadPage {
  data: unknown[];
  links: { next: string | null };
}

/** The number to show, or null when there are none. */
export async function unreadBadge(): Promise<string | null> {
  const page = await get<UnreadPage>(`/api/notifications?unread=1&per_page=${COUNTED}`);
  if (page.data.length === 0) return null;
  return page.links.next || page.data.length >= COUNTED ? "99+" : String(page.data.length);
}

const listeners = new Set<() => void>();

/** Calls `listener` whenever a page changed the user's notifications; returns how to stop. */
export function onNotificationsChanged(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Tells the listeners (the navigation's badge) that notifications were marked read. */
export function notificationsChanged(): void {
  for (const listener of listeners) listener();
}
