// A list the API hands out a page at a time: the first page, then each "Show more" fetches the next
// one (the answer's `links.next`) and adds it below what is shown.
import { useEffect, useRef, useState } from "preact/hooks";
import { get, messageOf } from "./api.ts";
import { useLoad } from "./load.ts";

/** How many items a list asks for at once. */
export const LISTED = 100;

export interface Listing<T> {
  items: T[];
  /** The next page's path and query on this origin; null after the last page. */
  next: string | null;
}

/** A page of the simple-paginated list at `path` (with its query): `perPage` items unless it says. */
export async function listing<T>(path: string, perPage = LISTED): Promise<Listing<T>> {
  const url = new URL(path, location.origin);
  if (!url.searchParams.has("per_page")) url.searchParams.set("per_page", String(perPage));
  const page = await get<{ data: T[]; links: { next: string | null } }>(url.pathname + url.search);
  // The link is absolute over APP_URL; its path and query go to the origin the dashboard came from,
  // as every call does, so the session goes with it.
  const next = page.links.next === null ? null : new URL(page.links.next, location.origin);
  return { items: page.data, next: next && next.pathname + next.search };
}

/** Every item of the list at `path`, page after page: for a select, which has no "Show more". */
export async function allItems<T>(path: string): Promise<T[]> {
  const items: T[] = [];
  for (let next: string | null = path; next !== null; ) {
    const page: Listing<T> = await listing<T>(next);
    items.push(...page.items);
    next = page.next;
  }
  return items;
}

/** "Show more" for a list: whether there is more, asking for it, and what went wrong doing so. */
export interface More {
  available: boolean;
  busy: boolean;
  error: string | null;
  show: () => Promise<void>;
}

/**
 * `page` added below `shown`. An item already shown (the list moved between pages: one was added at
 * its head) is not shown twice.
 */
function appended<T extends { id: unknown }>(shown: Listing<T>, page: Listing<T>): Listing<T> {
  const ids = new Set(shown.items.map((item) => item.id));
  return { items: [...shown.items, ...page.items.filter((item) => !ids.has(item.id))], next: page.next };
}

/**
 * A list loaded with `first`, as `useLoad` loads anything, plus `more` to add the next page. A reload
 * (after a change) asks for as many pages as were shown, so an item revoked on the second page does
 * not take the second page away with it; new `deps` (another search) start from the first page.
 */
export function useListing<T extends { id: unknown }>(
  first: () => Promise<Listing<T>>,
  failure: string,
  deps: unknown[] = [],
) {
  const shownCount = useRef(0);
  // Declared before useLoad's, so it runs first when `deps` change.
  useEffect(() => {
    shownCount.current = 0;
  }, deps);
  const loadAsShown = async () => {
    let list = await first();
    while (list.next !== null && list.items.length < shownCount.current) {
      list = appended(list, await listing<T>(list.next));
    }
    return list;
  };
  const { loading, reload, update } = useLoad(loadAsShown, failure, deps);
  if (loading.state === "loaded") shownCount.current = loading.data.items.length;
  const [asking, setAsking] = useState<{ busy: boolean; error: string | null }>({ busy: false, error: null });
  const next = loading.state === "loaded" ? loading.data.next : null;
  const show = async () => {
    if (next === null) return;
    setAsking({ busy: true, error: null });
    try {
      const page = await listing<T>(next);
      // Reloaded or searched meanwhile: this page belongs to a list no longer shown.
      update((shown) => (shown.next === next ? appended(shown, page) : shown));
      setAsking({ busy: false, error: null });
    } catch (error) {
      setAsking({ busy: false, error: messageOf(error, "The next page could not be loaded.") });
    }
  };
  const more: More = { available: next !== null, ...asking, show };
  return { loading, reload, update, more };
}
