// Selling through Stripe (admins): the webhook's address to give Stripe, which depot product (and
// option, and the license policy its license is made from) each Stripe price sells, and the events
// received with what came of each.
import { useState } from "preact/hooks";
import { messageOf } from "../api.ts";
import { CopyField } from "../copy-field.tsx";
import { formatDate } from "../dates.ts";
import { ErrorAlert } from "../error-alert.tsx";
import { Field } from "../field.tsx";
import { useForm } from "../form.ts";
import { FormPanel } from "../form-panel.tsx";
import { Layout } from "../layout.tsx";
import { useLoad } from "../load.ts";
import { Loaded } from "../loaded.tsx";
import type { PageProps } from "../pages.ts";
import {
  listStripeEvents,
  readStripeSettings,
  type StripeEvent,
  type StripeSettings,
  saveStripePrices,
  toPriceInput,
} from "../stripe/api.ts";

export function Stripe({ user, onSignedOut }: PageProps) {
  const settings = useLoad(readStripeSettings, "The Stripe settings could not be loaded.");
  const events = useLoad(listStripeEvents, "The Stripe events could not be loaded.");
  return (
    <Layout user={user} title="Stripe" onSignedOut={onSignedOut}>
      <p>
        A paid Stripe Checkout becomes a customer, a purchase and a license for the product its price is
        mapped to here.
      </p>
      <Loaded loading={settings.loading} label="Loading the Stripe settings…">
        {(data) => <Settings settings={data} onSaved={(next) => settings.update(() => next)} />}
      </Loaded>
      <section aria-labelledby="stripe-events-heading" aria-busy={events.loading.state === "loading"}>
        <h2 id="stripe-events-heading">Events</h2>
        <button type="button" onClick={() => void events.reload()}>
          Refresh events
        </button>
        <Loaded loading={events.loading} label="Loading events…">
          {(list) => <EventList events={list} />}
        </Loaded>
      </section>
    </Layout>
  );
}

function Settings({
  settings,
  onSaved,
}: {
  settings: StripeSettings;
  onSaved: (next: StripeSettings) => void;
}) {
  const [removing, setRemoving] = useState<string | null>(null);
  const [removeError, setRemoveError] = useState<string | null>(null);
  const current = settings.prices.map(toPriceInput);
  const index = current.length;
  const form = useForm(
    { price_id: "", product_id: "", option_id: "", policy_id: "" },
    {
      failure: "Saving the price failed.",
      errorKeys: {
        price_id: [`prices.${index}.price_id`],
        product_id: [`prices.${index}.product_id`],
        option_id: [`prices.${index}.option_id`],
        policy_id: [`prices.${index}.policy_id`],
      },
    },
  );
  const { values } = form;

  const add = async (event: Event) => {
    event.preventDefault();
    const added = {
      price_id: values.price_id.trim(),
      product_id: values.product_id.trim(),
      option_id: values.option_id.trim() === "" ? null : values.option_id.trim(),
      policy_id: values.policy_id.trim() === "" ? null : values.policy_id.trim(),
    };
    if (await form.run(async () => onSaved(await saveStripePrices([...current, added])))) form.reset();
  };

  const remove = async (priceId: string) => {
    setRemoving(priceId);
    setRemoveError(null);
    try {
      onSaved(await saveStripePrices(current.filter((price) => price.price_id !== priceId)));
    } catch (error) {
      setRemoveError(messageOf(error, "Removing the price failed."));
    } finally {
      setRemoving(null);
    }
  };

  return (
    <>
      <section aria-labelledby="stripe-webhook-heading">
        <h2 id="stripe-webhook-heading">Webhook</h2>
        <CopyField id="stripe-webhook-url" label="Endpoint to add in Stripe" value={settings.webhook_url} />
        <p class="hint">
          {settings.webhook_secret_set
            ? "STRIPE_WEBHOOK_SECRET is set: signed events are accepted."
            : "STRIPE_WEBHOOK_SECRET is not set: the endpoint answers 404 until it is."}
        </p>
      </section>
      <section aria-labelledby="stripe-prices-heading">
        <h2 id="stripe-prices-heading">Prices</h2>
        <ErrorAlert message={removeError} />
        {settings.prices.length === 0 ? (
          <p class="empty">No price is mapped yet: every sale is stored as failed until its price is.</p>
        ) : (
          <ul class="rows">
            {settings.prices.map((price) => (
              <li key={price.price_id} class="row">
                <div class="row-main">
                  <strong class="row-name">{price.price_id}</strong>
                  <span class="hint" dir="auto">
                    {price.product_name}
                    {price.option_name === null ? "" : ` · ${price.option_name}`}
                    {price.policy_name === null ? "" : ` · policy ${price.policy_name}`}
                  </span>
                </div>
                <button
                  type="button"
                  disabled={removing !== null}
                  aria-label={`Remove ${price.price_id}`}
                  onClick={() => void remove(price.price_id)}
                >
                  {removing === price.price_id ? "Removing…" : "Remove"}
                </button>
              </li>
            ))}
          </ul>
        )}
      </section>
      <FormPanel
        id="stripe-price"
        heading="Map a price"
        form={form}
        onSubmit={add}
        submit="Save price"
        busy="Saving…"
      >
        <Field
          id="stripe-price-id"
          label="Stripe price id"
          {...form.input("price_id")}
          alert
          required
          autocomplete="off"
          hint="From the price in Stripe, e.g. price_1Pro."
        />
        <Field
          id="stripe-product-id"
          label="Product id"
          {...form.input("product_id")}
          alert
          required
          inputMode="numeric"
          autocomplete="off"
        />
        <Field
          id="stripe-option-id"
          label="Option id (optional)"
          {...form.input("option_id")}
          alert
          inputMode="numeric"
          autocomplete="off"
        />
        <Field
          id="stripe-policy-id"
          label="License policy id (optional)"
          {...form.input("policy_id")}
          alert
          inputMode="numeric"
          autocomplete="off"
          hint="A policy of the product (its licenses page lists them): the license sold is made from it."
        />
      </FormPanel>
    </>
  );
}

function EventList({ events }: { events: StripeEvent[] }) {
  if (events.length === 0) return <p class="empty">No event received yet.</p>;
  return (
    <ul class="rows">
      {events.map((event) => (
        <li key={event.id} class="row">
          <div class="row-main">
            <strong class="row-name">
              {event.type} · {event.outcome}
            </strong>
            <span class="hint">{event.message}</span>
            <span class="hint">
              {event.id} · {formatDate(event.received_at)}
            </span>
          </div>
        </li>
      ))}
    </ul>
  );
}
