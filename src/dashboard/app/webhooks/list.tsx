// The user's endpoints: URL, events, when made, whether a 410 disabled it; "Deliveries" opens the
// newest deliveries under it, "Delete" removes it (after a confirm).
import { useState } from "preact/hooks";
import { formatDate } from "../dates.ts";
import type { Webhook } from "../wire.ts";
import { Deliveries } from "./deliveries.tsx";

interface Props {
  webhooks: Webhook[];
  deleting: number | null;
  onDelete: (webhook: Webhook) => void;
}

export function WebhookList({ webhooks, deleting, onDelete }: Props) {
  const [open, setOpen] = useState<number | null>(null);
  if (webhooks.length === 0) {
    return (
      <p class="empty">No endpoints yet. Add one with New endpoint to be told when a version is published.</p>
    );
  }
  return (
    <ul class="items">
      {webhooks.map((webhook) => {
        const urlId = `webhook-url-${webhook.id}`;
        const deliveriesId = `webhook-deliveries-${webhook.id}`;
        return (
          <li key={webhook.id} class="item">
            <code id={urlId} class="webhook-url" dir="auto">
              {webhook.url}
            </code>
            <span class="hint">
              {webhook.events.join(", ")} · Created{" "}
              <time dateTime={webhook.created_at}>{formatDate(webhook.created_at)}</time>
            </span>
            {webhook.disabled_at && (
              <p class="hint">
                Disabled <time dateTime={webhook.disabled_at}>{formatDate(webhook.disabled_at)}</time>: it
                answered 410 Gone, so nothing more is sent to it.
              </p>
            )}
            <div class="actions">
              <button
                type="button"
                class="secondary"
                aria-expanded={open === webhook.id}
                aria-controls={deliveriesId}
                aria-describedby={urlId}
                onClick={() => setOpen(open === webhook.id ? null : webhook.id)}
              >
                Deliveries
              </button>
              <button
                type="button"
                class="danger"
                aria-describedby={urlId}
                onClick={() => onDelete(webhook)}
                disabled={deleting === webhook.id}
              >
                {deleting === webhook.id ? "Deleting…" : "Delete"}
              </button>
            </div>
            {open === webhook.id && (
              <Deliveries id={deliveriesId} webhookId={webhook.id} disabled={webhook.disabled_at !== null} />
            )}
          </li>
        );
      })}
    </ul>
  );
}
