export * from "./api-keys.ts";
export * from "./personal-access-tokens.ts";
export * from "./roles.ts";
export * from "./users.ts";
