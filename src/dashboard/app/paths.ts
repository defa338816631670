// The signed-in pages' paths, for the router (app.tsx) and the navigation (nav.tsx).
export const HOME_PATH = "/";
export const TOKENS_PATH = "/dashboard/tokens";
export const PROFILE_PATH = "/dashboard/profile";
export const LICENSES_PATH = "/dashboard/licenses";
export const DOWNLOADS_PATH = "/dashboard/downloads";
export const NOTIFICATIONS_PATH = "/dashboard/notifications";
