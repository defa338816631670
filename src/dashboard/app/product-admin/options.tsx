// A product's options (the tiers it is sold in) with their prices, each with its benefits, and the
// forms that add an option or a benefit to one.
import { useState } from "preact/hooks";
import { Field } from "../field.tsx";
import { useLoad } from "../load.ts";
import { Loaded } from "../loaded.tsx";
import { formError, messagesFor, useSubmission } from "../submission.ts";
import type { Option } from "../wire.ts";
import { addBenefit, addOption, listOptions, priceOf } from "./api.ts";

const PRICE = new Intl.NumberFormat(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 });

export function ProductOptions({ productId }: { productId: number }) {
  const { loading, reload } = useLoad(() => listOptions(productId), "The options could not be loaded.");
  return (
    <section class="panel" aria-labelledby="options-heading" aria-busy={loading.state === "loading"}>
      <h2 id="options-heading">Options</h2>
      <p class="hint">The tiers the product is sold in; each includes its benefits.</p>
      <Loaded loading={loading} label="Loading options…">
        {(options) =>
          options.length === 0 ? (
            <p class="empty">No options yet. Add the first one below.</p>
          ) : (
            <ul class="rows">
              {options.map((option) => (
                <OptionRow
                  key={option.id}
                  productId={productId}
                  option={option}
                  onAdded={() => void reload()}
                />
              ))}
            </ul>
          )
        }
      </Loaded>
      <AddOption productId={productId} onAdded={() => void reload()} />
    </section>
  );
}

function OptionRow({
  productId,
  option,
  onAdded,
}: {
  productId: number;
  option: Option;
  onAdded: () => void;
}) {
  return (
    <li class="row option">
      <div class="row-main">
        <strong class="row-name">
          <bdi>{option.name}</bdi> <span class="price">{PRICE.format(option.price)}</span>
        </strong>
        {option.benefits.length === 0 ? (
          <span class="hint">No benefits yet.</span>
        ) : (
          <ul class="benefits" aria-label={`Benefits of ${option.name}`}>
            {option.benefits.map((benefit) => (
              <li key={benefit.id}>{benefit.name}</li>
            ))}
          </ul>
        )}
        <AddBenefit productId={productId} option={option} onAdded={onAdded} />
      </div>
    </li>
  );
}

function AddOption({ productId, onAdded }: { productId: number; onAdded: () => void }) {
  const [name, setName] = useState("");
  const [price, setPrice] = useState("");
  const { busy, error, fields, run } = useSubmission("Adding the option failed.");
  const submit = async (event: Event) => {
    event.preventDefault();
    if (await run(() => addOption(productId, name.trim(), priceOf(price)))) {
      setName("");
      setPrice("");
      onAdded();
    }
  };
  const generalError = formError(error, fields, ["name", "price"]);
  return (
    <form onSubmit={submit} aria-labelledby="add-option-heading" noValidate>
      <h3 id="add-option-heading">Add option</h3>
      {generalError && (
        <p class="error" role="alert">
          {generalError}
        </p>
      )}
      <Field
        id="option-name"
        label="Name"
        error={messagesFor(fields, "name")}
        alert
        required
        maxLength={255}
        autocomplete="off"
        placeholder="e.g. Premium"
        value={name}
        onInput={(event) => setName(event.currentTarget.value)}
      />
      <Field
        id="option-price"
        label="Price"
        error={messagesFor(fields, "price")}
        alert
        required
        type="number"
        inputMode="decimal"
        min="0"
        step="0.01"
        value={price}
        onInput={(event) => setPrice(event.currentTarget.value)}
      />
      <button type="submit" disabled={busy}>
        {busy ? "Adding…" : "Add option"}
      </button>
    </form>
  );
}

function AddBenefit({
  productId,
  option,
  onAdded,
}: {
  productId: number;
  option: Option;
  onAdded: () => void;
}) {
  const [name, setName] = useState("");
  const { busy, error, fields, run } = useSubmission("Adding the benefit failed.");
  const submit = async (event: Event) => {
    event.preventDefault();
    if (await run(() => addBenefit(productId, option.id, name.trim()))) {
      setName("");
      onAdded();
    }
  };
  const generalError = formError(error, fields, ["name"]);
  const id = `option-${option.id}-benefit`;
  return (
    <form class="inline-form" onSubmit={submit} aria-label={`Add a benefit to ${option.name}`} noValidate>
      {generalError && (
        <p class="error" role="alert">
          {generalError}
        </p>
      )}
      <Field
        id={id}
        label={
          <>
            New benefit of <bdi>{option.name}</bdi>
          </>
        }
        error={messagesFor(fields, "name")}
        alert
        required
        maxLength={255}
        autocomplete="off"
        placeholder="e.g. Source code access"
        value={name}
        onInput={(event) => setName(event.currentTarget.value)}
      />
      <button type="submit" disabled={busy} aria-label={`Add benefit to ${option.name}`}>
        {busy ? "Adding…" : "Add benefit"}
      </button>
    </form>
  );
}
