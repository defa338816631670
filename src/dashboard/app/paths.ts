// The signed-in pages' paths, for the router (app.tsx) and the navigation (nav.tsx).
export const HOME_PATH = "/";
export const TOKENS_PATH = "/dashboard/tokens";
export const PROFILE_PATH = "/dashboard/profile";
export const PRODUCT_LICENSES_PATH = "/dashboard/products/:product/licenses";
export const WEBHOOKS_PATH = "/dashboard/webhooks";
