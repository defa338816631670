import { licenseKeyEmail } from "./features/licenses/jobs.ts";
import { notificationEmail } from "./features/mail/jobs.ts";
import { passwordLinkEmail } from "./features/password-links/jobs.ts";
import { versionPublished, versionYanked } from "./features/versions/jobs.ts";
import { webhookDelivery } from "./features/webhooks/jobs.ts";
import type { QueueDefinition } from "./jobs/registry.ts";

/**
 * Every queue depot serves. Feature modules define their queues next to their logic
 * (`defineQueue` in `src/features/<domain>/jobs.ts`) and list them here, beside app.ts: like the
 * routes, the list knows every feature, so it sits above them rather than in jobs/, which they import.
 */
// biome-ignore lint/suspicious/noExplicitAny: a heterogeneous list; each entry is checked by defineQueue.
export const queues: QueueDefinition<any>[] = [
  versionPublished,
  versionYanked,
  notificationEmail,
  webhookDelivery,
  passwordLinkEmail,
  licenseKeyEmail,
];
