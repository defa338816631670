// Register an endpoint: its URL and the events to receive; a 422 shows beside the field it is about.
import { WEBHOOK_EVENTS, type WebhookEvent } from "../../../features/webhooks/events.ts";
import { Checkboxes, Field } from "../field.tsx";
import { useForm } from "../form.ts";
import { FormPanel } from "../form-panel.tsx";
import type { NewWebhook } from "../wire.ts";
import { createWebhook } from "./api.ts";

const DESCRIPTIONS: Record<WebhookEvent, string> = {
  "version.published": "A version of a product you own or hold is published",
  "version.yanked": "A version you downloaded (or of a product you own) is withdrawn, with the reason",
};
const EVENTS = WEBHOOK_EVENTS.map((name) => ({ name, description: DESCRIPTIONS[name] }));

export function NewWebhookForm({ onCreated }: { onCreated: (webhook: NewWebhook) => void }) {
  const form = useForm(
    { url: "", events: [...WEBHOOK_EVENTS] as WebhookEvent[] },
    { failure: "Creating the endpoint failed." },
  );
  const { values } = form;

  const submit = async (event: Event) => {
    event.preventDefault();
    const request = { url: values.url.trim(), events: values.events };
    if (await form.run(async () => onCreated(await createWebhook(request)))) form.reset();
  };

  return (
    <FormPanel
      id="new-webhook"
      heading="New endpoint"
      form={form}
      onSubmit={submit}
      submit="Create endpoint"
      busy="Creating…"
    >
      <Field
        id="webhook-url"
        label="URL"
        {...form.input("url")}
        alert
        type="url"
        name="url"
        required
        maxLength={2048}
        autocomplete="off"
        placeholder="https://example.com/hooks/depot"
        hint="depot POSTs each event here, signed per Standard Webhooks."
      />
      <Checkboxes
        id="webhook-events"
        legend="Events"
        name="events"
        itemPrefix="event"
        choices={EVENTS}
        chosen={values.events}
        onChange={(events) => form.set("events", events)}
        error={form.errorOf("events")}
      />
    </FormPanel>
  );
}
