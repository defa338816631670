// Every signed-in page: the sidebar, then the page's main content under its heading.
import type { ComponentChildren } from "preact";
import { Sidebar } from "./nav.tsx";
import { PageHeading } from "./pages/heading.tsx";
import type { User } from "./wire.ts";

interface Props {
  user: User;
  title: ComponentChildren;
  onSignedOut: () => void;
  children?: ComponentChildren;
}

export function Layout({ user, title, onSignedOut, children }: Props) {
  return (
    <div class="shell">
      <Sidebar user={user} onSignedOut={onSignedOut} />
      <main class="page">
        <PageHeading>{title}</PageHeading>
        {children}
      </main>
    </div>
  );
}
