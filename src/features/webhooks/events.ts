// The events an endpoint can subscribe to, in a file of its own so the dashboard offers the same list
// without bundling the API's schemas.
export const WEBHOOK_EVENTS = ["version.published", "version.yanked"] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
