// An endpoint's newest deliveries, opened under it: event, when, status, attempts and the last
// response code, with "Send again" (the same delivery, queued once more) and a Refresh.
import { useState } from "preact/hooks";
import { messageOf } from "../api.ts";
import { formatDate } from "../dates.ts";
import { ErrorAlert } from "../error-alert.tsx";
import { useListing } from "../listing.ts";
import { Loaded } from "../loaded.tsx";
import { ShowMore } from "../show-more.tsx";
import type { Delivery } from "../wire.ts";
import { listDeliveries, resendDelivery } from "./api.ts";

const STATUS_LABELS: Record<Delivery["status"], string> = {
  pending: "Pending",
  succeeded: "Succeeded",
  failed: "Failed",
};

/** The last attempt's answer: its HTTP status, or why there was none. */
function lastResponse(delivery: Delivery): string {
  const last = delivery.attempts.at(-1);
  if (!last) return "Not attempted yet";
  if (last.status_code !== null) return String(last.status_code);
  return last.error ?? "No answer";
}

interface Props {
  id: string;
  webhookId: number;
  /** A 410 disabled the endpoint: nothing can be sent to it, so there is no "Send again". */
  disabled: boolean;
}

export function Deliveries({ id, webhookId, disabled }: Props) {
  const { loading, reload, more } = useListing(
    () => listDeliveries(webhookId),
    "The deliveries could not be loaded.",
  );
  const [sending, setSending] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const resend = async (delivery: Delivery) => {
    setSending(delivery.id);
    setNotice(null);
    setError(null);
    try {
      await resendDelivery(webhookId, delivery.id);
      setNotice("Queued: it is sent again in a moment. Refresh to see the attempt.");
    } catch (failure) {
      setError(messageOf(failure, "Sending it again failed."));
    }
    setSending(null);
    await reload();
  };

  return (
    <div id={id} class="expanded">
      <p aria-live="polite" class="hint">
        {notice}
      </p>
      <ErrorAlert message={error} />
      <Loaded loading={loading} label="Loading deliveries…">
        {({ items: deliveries }) =>
          deliveries.length === 0 ? (
            <p class="empty">No deliveries yet: one is made when an event you subscribed to happens.</p>
          ) : (
            <>
              <ul class="rows">
                {deliveries.map((delivery) => (
                  <li key={delivery.id} class="row">
                    <dl class="item-facts">
                      <dt>Event</dt>
                      <dd>
                        <code>{delivery.event}</code>
                      </dd>
                      <dt>Created</dt>
                      <dd>
                        <time dateTime={delivery.created_at}>{formatDate(delivery.created_at)}</time>
                      </dd>
                      <dt>Status</dt>
                      <dd>
                        <span class={`status status-${delivery.status}`}>
                          {STATUS_LABELS[delivery.status]}
                        </span>
                      </dd>
                      <dt>Attempts</dt>
                      <dd>{delivery.attempts.length}</dd>
                      <dt>Last response</dt>
                      <dd class="last-response">{lastResponse(delivery)}</dd>
                    </dl>
                    {!disabled && (
                      <button
                        type="button"
                        class="secondary"
                        onClick={() => resend(delivery)}
                        disabled={sending !== null}
                      >
                        {sending === delivery.id ? "Sending…" : "Send again"}
                      </button>
                    )}
                  </li>
                ))}
              </ul>
              <ShowMore more={more} noun="deliveries" />
            </>
          )
        }
      </Loaded>
      <button type="button" class="secondary" onClick={() => void reload()}>
        Refresh
      </button>
    </div>
  );
}
