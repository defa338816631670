// Every signed-in page, by path: the app shows the first whose pattern matches (router.ts matchPath).
import type { JSX } from "preact";
import { Downloads } from "./pages/downloads.tsx";
import { Home } from "./pages/home.tsx";
import { Licenses } from "./pages/licenses.tsx";
import { Notifications } from "./pages/notifications.tsx";
import { Profile } from "./pages/profile.tsx";
import { Tokens } from "./pages/tokens.tsx";
import {
  DOWNLOADS_PATH,
  HOME_PATH,
  LICENSES_PATH,
  NOTIFICATIONS_PATH,
  PROFILE_PATH,
  TOKENS_PATH,
} from "./paths.ts";
import type { User } from "./session.ts";

export interface PageProps {
  user: User;
  /** The path's parameters (`:product` → `params.product`). */
  params: Record<string, string>;
  onSignedOut: () => void;
  /** The user changed (their name on Profile): every page shows the new one from then on. */
  onUserChanged: (user: User) => void;
}

export const PAGES: { path: string; page: (props: PageProps) => JSX.Element }[] = [
  { path: HOME_PATH, page: Home },
  { path: TOKENS_PATH, page: Tokens },
  { path: PROFILE_PATH, page: Profile },
  { path: LICENSES_PATH, page: Licenses },
  { path: DOWNLOADS_PATH, page: Downloads },
  { path: NOTIFICATIONS_PATH, page: Notifications },
];
