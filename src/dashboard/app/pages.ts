// Every signed-in page, by path: the app shows the first whose pattern matches (router.ts matchPath).
import type { JSX } from "preact";
import { ApiKeys } from "./pages/api-keys.tsx";
import { Downloads } from "./pages/downloads.tsx";
import { Home } from "./pages/home.tsx";
import { MyLicenses } from "./pages/my-licenses.tsx";
import { NewProduct } from "./pages/new-product.tsx";
import { Notifications } from "./pages/notifications.tsx";
import { ProductPage } from "./pages/product.tsx";
import { ProductLicenses } from "./pages/product-licenses.tsx";
import { ProductSettings } from "./pages/product-settings.tsx";
import { Products } from "./pages/products.tsx";
import { Profile } from "./pages/profile.tsx";
import { Purchases } from "./pages/purchases.tsx";
import { Roles } from "./pages/roles.tsx";
import { Rollouts } from "./pages/rollouts.tsx";
import { SoldLicenses } from "./pages/sold-licenses.tsx";
import { Stripe } from "./pages/stripe.tsx";
import { Tokens } from "./pages/tokens.tsx";
import { Users } from "./pages/users.tsx";
import { Versions } from "./pages/versions.tsx";
import { Webhooks } from "./pages/webhooks.tsx";
import {
  API_KEYS_PATH,
  DOWNLOADS_PATH,
  HOME_PATH,
  LICENSES_PATH,
  NEW_PRODUCT_PATH,
  NOTIFICATIONS_PATH,
  PRODUCT_LICENSES_PATH,
  PRODUCT_PATH,
  PRODUCT_SETTINGS_PATH,
  PRODUCTS_PATH,
  PROFILE_PATH,
  PURCHASES_PATH,
  ROLES_PATH,
  ROLLOUTS_PATH,
  SOLD_LICENSES_PATH,
  STRIPE_PATH,
  TOKENS_PATH,
  USERS_PATH,
  VERSIONS_PATH,
  WEBHOOKS_PATH,
} from "./paths.ts";
import { hasPermissions, isAdmin, seesPurchases, seesUsers, sells } from "./session.ts";
import type { User } from "./wire.ts";

export interface PageProps {
  user: User;
  /** The path's parameters (`:product` → `params.product`). */
  params: Record<string, string>;
  onSignedOut: () => void;
  /** The user changed (their name on Profile): every page shows the new one from then on. */
  onUserChanged: (user: User) => void;
}

interface PageEntry {
  path: string;
  page: (props: PageProps) => JSX.Element;
  /**
   * Whom the page is for (the sidebar's rule for its link); anyone else gets "Page not found". The API
   * still decides what they may read: this only keeps a role off pages it has no use for.
   */
  shows?: (user: User) => boolean;
}

export const PAGES: PageEntry[] = [
  { path: HOME_PATH, page: Home },
  { path: TOKENS_PATH, page: Tokens, shows: hasPermissions },
  { path: PROFILE_PATH, page: Profile },
  { path: LICENSES_PATH, page: MyLicenses },
  { path: SOLD_LICENSES_PATH, page: SoldLicenses, shows: sells },
  { path: DOWNLOADS_PATH, page: Downloads },
  { path: NOTIFICATIONS_PATH, page: Notifications },
  { path: PURCHASES_PATH, page: Purchases, shows: seesPurchases },
  { path: WEBHOOKS_PATH, page: Webhooks, shows: sells },
  { path: VERSIONS_PATH, page: Versions, shows: sells },
  { path: ROLLOUTS_PATH, page: Rollouts, shows: sells },
  { path: USERS_PATH, page: Users, shows: seesUsers },
  { path: ROLES_PATH, page: Roles, shows: isAdmin },
  { path: API_KEYS_PATH, page: ApiKeys, shows: isAdmin },
  { path: PRODUCTS_PATH, page: Products, shows: sells },
  { path: STRIPE_PATH, page: Stripe, shows: isAdmin },
  // Before PRODUCT_PATH: the first match wins, and "new" is not a product id.
  { path: NEW_PRODUCT_PATH, page: NewProduct, shows: isAdmin },
  // A product's pages say "Product not found." themselves to whoever does not manage it.
  { path: PRODUCT_PATH, page: ProductPage },
  { path: PRODUCT_LICENSES_PATH, page: ProductLicenses },
  { path: PRODUCT_SETTINGS_PATH, page: ProductSettings },
];
