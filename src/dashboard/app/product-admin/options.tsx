// A product's options (the tiers it is sold in) with their prices, each with its benefits, and the
// forms that add an option or a benefit to one.
import { ErrorAlert } from "../error-alert.tsx";
import { Field } from "../field.tsx";
import { useForm } from "../form.ts";
import { useLoad } from "../load.ts";
import { Loaded } from "../loaded.tsx";
import type { Option } from "../wire.ts";
import { addBenefit, addOption, listOptions, priceOf } from "./api.ts";
import { PriceField } from "./price-field.tsx";

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

/** One of the product's options; `onAdded` is called once a benefit was added to it. */
interface OptionProps {
  productId: number;
  option: Option;
  onAdded: () => void;
}

function OptionRow({ productId, option, onAdded }: OptionProps) {
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
  const form = useForm({ name: "", price: "" }, { failure: "Adding the option failed." });
  const submit = async (event: Event) => {
    event.preventDefault();
    const { name, price } = form.values;
    if (await form.run(() => addOption(productId, name.trim(), priceOf(price)))) {
      form.reset();
      onAdded();
    }
  };
  return (
    <form onSubmit={submit} aria-labelledby="add-option-heading" noValidate>
      <h3 id="add-option-heading">Add option</h3>
      <ErrorAlert message={form.summary} />
      <Field
        id="option-name"
        label="Name"
        {...form.input("name")}
        alert
        required
        maxLength={255}
        autocomplete="off"
        placeholder="e.g. Premium"
      />
      <PriceField id="option-price" label="Price" {...form.input("price")} />
      <button type="submit" disabled={form.busy}>
        {form.busy ? "Adding…" : "Add option"}
      </button>
    </form>
  );
}

function AddBenefit({ productId, option, onAdded }: OptionProps) {
  const form = useForm({ name: "" }, { failure: "Adding the benefit failed." });
  const submit = async (event: Event) => {
    event.preventDefault();
    if (await form.run(() => addBenefit(productId, option.id, form.values.name.trim()))) {
      form.reset();
      onAdded();
    }
  };
  return (
    <form class="inline-form" onSubmit={submit} aria-label={`Add a benefit to ${option.name}`} noValidate>
      <ErrorAlert message={form.summary} />
      <Field
        id={`option-${option.id}-benefit`}
        label={
          <>
            New benefit of <bdi>{option.name}</bdi>
          </>
        }
        {...form.input("name")}
        alert
        required
        maxLength={255}
        autocomplete="off"
        placeholder="e.g. Source code access"
      />
      <button type="submit" disabled={form.busy} aria-label={`Add benefit to ${option.name}`}>
        {form.busy ? "Adding…" : "Add benefit"}
      </button>
    </form>
  );
}
