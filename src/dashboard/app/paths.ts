// The signed-in pages' paths, for the router (pages.ts) and the links between pages.
export const HOME_PATH = "/";
export const TOKENS_PATH = "/dashboard/tokens";
export const PROFILE_PATH = "/dashboard/profile";
export const LICENSES_PATH = "/dashboard/licenses";
export const DOWNLOADS_PATH = "/dashboard/downloads";
export const NOTIFICATIONS_PATH = "/dashboard/notifications";
export const PURCHASES_PATH = "/dashboard/purchases";
export const WEBHOOKS_PATH = "/dashboard/webhooks";
export const USERS_PATH = "/dashboard/users";
export const ROLES_PATH = "/dashboard/roles";
export const API_KEYS_PATH = "/dashboard/api-keys";
/** The licenses of the products the reader sells (Sell → Licenses); LICENSES_PATH is the ones they hold. */
export const SOLD_LICENSES_PATH = "/dashboard/sold-licenses";
export const STRIPE_PATH = "/dashboard/stripe";
/** Ship: the versions of every product the reader manages, and those being rolled out. */
export const VERSIONS_PATH = "/dashboard/versions";
export const ROLLOUTS_PATH = "/dashboard/rollouts";

export const PRODUCTS_PATH = "/dashboard/products";
/** Must come before PRODUCT_PATH in PAGES, or "new" would be taken for a product id. */
export const NEW_PRODUCT_PATH = "/dashboard/products/new";
export const PRODUCT_PATH = "/dashboard/products/:product";
export const PRODUCT_LICENSES_PATH = "/dashboard/products/:product/licenses";
export const PRODUCT_SETTINGS_PATH = "/dashboard/products/:product/settings";
/** A product's page, or a page under it (`/licenses`, `/settings`). */
export const productPath = (id: number | string, below = "") =>
  `${PRODUCTS_PATH}/${encodeURIComponent(String(id))}${below}`;
