// Every signed-in page: the top navigation, then the page's main content under its heading.
import type { ComponentChildren } from "preact";
import { TopNav } from "./nav.tsx";
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
    <>
      <TopNav user={user} onSignedOut={onSignedOut} />
      <main class="page">
        <PageHeading>{title}</PageHeading>
        {children}
      </main>
    </>
  );
}
