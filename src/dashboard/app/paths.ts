// The signed-in pages' paths, for the router (app.tsx) and the navigation (nav.tsx).
export const HOME_PATH = "/";
export const TOKENS_PATH = "/dashboard/tokens";
export const PROFILE_PATH = "/dashboard/profile";
export const PRODUCTS_PATH = "/dashboard/products";
export const PRODUCT_PATH = "/dashboard/products/:product";
export const NEW_PRODUCT_PATH = "/dashboard/products/new";
/** A product's page and the pages under it (licenses and settings are built elsewhere). */
export const productPath = (id: number | string, below = "") =>
  `${PRODUCTS_PATH}/${encodeURIComponent(String(id))}${below}`;
