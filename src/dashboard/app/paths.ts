// The signed-in pages' paths, for the router (app.tsx) and the navigation (nav.tsx).
export const HOME_PATH = "/";
export const TOKENS_PATH = "/dashboard/tokens";
export const PROFILE_PATH = "/dashboard/profile";
export const PRODUCT_LICENSES_PATH = "/dashboard/products/:product/licenses";
export const WEBHOOKS_PATH = "/dashboard/webhooks";
export const USERS_PATH = "/dashboard/users";
export const ROLES_PATH = "/dashboard/roles";
export const API_KEYS_PATH = "/dashboard/api-keys";
export const PURCHASES_PATH = "/dashboard/purchases";
/** Must come before `/dashboard/products/:product` in PAGES, or "new" would be taken for a product id. */
export const NEW_PRODUCT_PATH = "/dashboard/products/new";
export const PRODUCT_SETTINGS_PATH = "/dashboard/products/:product/settings";
/** The product's own page (built beside these) and its settings, for a product id. */
export const productPagePath = (id: number | string) => `/dashboard/products/${id}`;
export const productSettingsPath = (id: number | string) => `/dashboard/products/${id}/settings`;
export const PRODUCTS_LIST_PATH = "/dashboard/products";
export const LICENSES_PATH = "/dashboard/licenses";
export const DOWNLOADS_PATH = "/dashboard/downloads";
export const NOTIFICATIONS_PATH = "/dashboard/notifications";
