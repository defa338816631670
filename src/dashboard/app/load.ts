// A page's data on its way: loading, failed with a message to show, or loaded; `reload` asks again
// (after a change) without going back to the loading state, so the page does not flash, and `update`
// changes what was loaded (a next page added to it).
import { useEffect, useState } from "preact/hooks";
import { messageOf } from "./api.ts";

export type Loading<T> =
  | { state: "loading" }
  | { state: "failed"; message: string }
  | { state: "loaded"; data: T };

/** Runs `load` now and whenever `deps` change; `failure` is the message for an unexpected error. */
export function useLoad<T>(load: () => Promise<T>, failure: string, deps: unknown[] = []) {
  const [loading, setLoading] = useState<Loading<T>>({ state: "loading" });
  const reload = () =>
    load().then(
      (data) => setLoading({ state: "loaded", data }),
      (error) => setLoading({ state: "failed", message: messageOf(error, failure) }),
    );
  const update = (change: (data: T) => T) =>
    setLoading((now) => (now.state === "loaded" ? { state: "loaded", data: change(now.data) } : now));
  useEffect(() => {
    setLoading({ state: "loading" });
    void reload();
  }, deps);
  return { loading, reload, update };
}
