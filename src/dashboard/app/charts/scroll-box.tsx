// A table's box that scrolls sideways when the table is wider than the page (a phone, a half-width
// chart column): focusable and named, so a keyboard can scroll it and a screen reader says what it is.
import type { ComponentChildren } from "preact";

export function ScrollBox({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolled region must take focus to be scrolled by keyboard.
    <section class="table-scroll" aria-label={label} tabIndex={0}>
      {children}
    </section>
  );
}
