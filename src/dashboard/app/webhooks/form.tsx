// Register an endpoint: its URL and the events to receive; a 422 shows beside the field it is about.
import { useState } from "preact/hooks";
import { WEBHOOK_EVENTS } from "../../../features/webhooks/events.ts";
import { Field } from "../field.tsx";
import { useSubmission } from "../submission.ts";
import type { NewWebhook } from "../wire.ts";
import { createWebhook } from "./api.ts";

const DESCRIPTIONS: Record<(typeof WEBHOOK_EVENTS)[number], string> = {
  "version.published": "A version of a product you own or hold is published",
};

/** The 422's messages for `field` and its items (`events.0`…), joined for one line under it. */
const messagesFor = (fields: Record<string, string[]>, field: string) =>
  Object.entries(fields)
    .filter(([key]) => key === field || key.startsWith(`${field}.`))
    .flatMap(([, messages]) => messages)
    .join(" ") || null;

export function NewWebhookForm({ onCreated }: { onCreated: (webhook: NewWebhook) => void }) {
  const [url, setUrl] = useState("");
  const [events, setEvents] = useState<string[]>([...WEBHOOK_EVENTS]);
  const { busy, error, fields, run } = useSubmission("Creating the endpoint failed.");

  const submit = async (event: Event) => {
    event.preventDefault();
    const created = await run(async () => onCreated(await createWebhook({ url: url.trim(), events })));
    if (created) {
      setUrl("");
      setEvents([...WEBHOOK_EVENTS]);
    }
  };
  const toggle = (name: string, on: boolean) =>
    setEvents((current) => (on ? [...current, name] : current.filter((e) => e !== name)));

  const urlError = messagesFor(fields, "url");
  const eventsError = messagesFor(fields, "events");
  const generalError = error && !urlError && !eventsError ? error : null;

  return (
    <form onSubmit={submit} aria-labelledby="new-webhook-heading" class="panel" noValidate>
      <h2 id="new-webhook-heading">New endpoint</h2>
      {generalError && (
        <p class="error" role="alert">
          {generalError}
        </p>
      )}
      <Field
        id="webhook-url"
        label="URL"
        error={urlError}
        alert
        type="url"
        name="url"
        required
        maxLength={2048}
        autocomplete="off"
        placeholder="https://example.com/hooks/depot"
        hint="depot POSTs each event here, signed per Standard Webhooks."
        value={url}
        onInput={(event) => setUrl(event.currentTarget.value)}
      />
      <fieldset aria-describedby={eventsError ? "webhook-events-error" : undefined}>
        <legend>Events</legend>
        {WEBHOOK_EVENTS.map((name) => (
          <div class="check" key={name}>
            <input
              type="checkbox"
              id={`event-${name}`}
              name="events"
              value={name}
              checked={events.includes(name)}
              onChange={(event) => toggle(name, event.currentTarget.checked)}
            />
            <label for={`event-${name}`}>
              <code>{name}</code> <span class="hint">{DESCRIPTIONS[name]}</span>
            </label>
          </div>
        ))}
        {eventsError && (
          <p id="webhook-events-error" class="field-error" role="alert">
            {eventsError}
          </p>
        )}
      </fieldset>
      <button type="submit" disabled={busy}>
        {busy ? "Creating…" : "Create endpoint"}
      </button>
    </form>
  );
}
