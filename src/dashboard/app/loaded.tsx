// What a section shows while its data is on its way: the loading line, the failure, or the content.
import type { ComponentChildren } from "preact";
import type { Loading } from "./load.ts";

interface Props<T> {
  loading: Loading<T>;
  /** "Loading licenses…": announced politely to screen readers. */
  label: string;
  children: (data: T) => ComponentChildren;
}

export function Loaded<T>({ loading, label, children }: Props<T>) {
  if (loading.state === "loading") return <p aria-live="polite">{label}</p>;
  if (loading.state === "failed")
    return (
      <p class="error" role="alert">
        {loading.message}
      </p>
    );
  return <>{children(loading.data)}</>;
}
