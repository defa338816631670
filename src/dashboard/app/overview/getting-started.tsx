// A new seller's first steps, each ticked off by what exists (a product, a token, a version, a
// license, an update poll); gone once every one is done.
import { NavLink } from "../nav.tsx";
import { PRODUCTS_PATH, SOLD_LICENSES_PATH, TOKENS_PATH } from "../paths.ts";
import { isAdmin } from "../session.ts";
import type { User } from "../wire.ts";
import type { Overview } from "./api.ts";

export function GettingStarted({ user, overview }: { user: User; overview: Overview }) {
  const steps = [
    {
      done: overview.products.length > 0,
      text: isAdmin(user)
        ? "Create a product (Products → New product)"
        : "Get a product: an admin creates it for you",
      href: PRODUCTS_PATH,
    },
    { done: overview.hasToken, text: "Make a token for your CI to publish with", href: TOKENS_PATH },
    { done: overview.hasVersion, text: "Publish a first version", href: PRODUCTS_PATH },
    { done: overview.hasLicense, text: "Create a first license", href: SOLD_LICENSES_PATH },
    {
      done: (overview.stats.series.polls ?? []).length > 0,
      text: "Add the updater to your app (the guide's snippet for your framework)",
      href: "/docs",
    },
  ];
  if (steps.every((step) => step.done)) return null;
  const left = steps.filter((step) => !step.done).length;
  return (
    <section class="panel" aria-labelledby="getting-started-heading">
      <h2 id="getting-started-heading">Getting started</h2>
      <p class="hint">
        {steps.length - left} of {steps.length} done
      </p>
      <ul class="checklist">
        {steps.map((step) => (
          <li key={step.text} class={step.done ? "done" : undefined}>
            <span aria-hidden="true">{step.done ? "✓ " : "○ "}</span>
            <span class="visually-hidden">{step.done ? "Done: " : "To do: "}</span>
            {step.href === "/docs" ? (
              <a href={step.href}>{step.text}</a>
            ) : (
              <NavLink href={step.href}>{step.text}</NavLink>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
