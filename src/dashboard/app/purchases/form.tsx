// Record a purchase (admins): the customer by e-mail, the product and one of its options, the price.
// The server's 422s show beside the field they are about (user_id beside the e-mail).
import { useState } from "preact/hooks";
import { ApiError } from "../api.ts";
import { Field, SelectField } from "../field.tsx";
import { useLoad } from "../load.ts";
import { listOptions, priceOf } from "../product-admin/api.ts";
import { formError, messagesFor, useSubmission } from "../submission.ts";
import { userByEmail } from "../users/api.ts";
import type { Option, Product } from "../wire.ts";
import { createPurchase } from "./api.ts";

const NO_USER = "No user has this e-mail address.";

export function NewPurchaseForm({ products, onCreated }: { products: Product[]; onCreated: () => void }) {
  const [email, setEmail] = useState("");
  const [productId, setProductId] = useState("");
  const [optionId, setOptionId] = useState("");
  const [price, setPrice] = useState("");
  const { busy, error, fields, run } = useSubmission("Recording the purchase failed.");
  const options = useLoad<Option[]>(
    () => (productId ? listOptions(productId) : Promise.resolve([])),
    "The product's options could not be loaded.",
    [productId],
  );

  const chooseOption = (id: string) => {
    setOptionId(id);
    // The option's list price is the likely price; it stays editable.
    const option =
      options.loading.state === "loaded" ? options.loading.data.find((o) => String(o.id) === id) : null;
    if (option) setPrice(option.price.toFixed(2));
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    const recorded = await run(async () => {
      const customer = await userByEmail(email);
      if (!customer) throw new ApiError(422, NO_USER, { user_id: [NO_USER] });
      await createPurchase({
        user_id: customer.id,
        product_id: productId ? Number(productId) : undefined,
        option_id: optionId ? Number(optionId) : null,
        unit_price: priceOf(price),
      });
    });
    if (recorded) {
      setEmail("");
      setProductId("");
      setOptionId("");
      setPrice("");
      onCreated();
    }
  };

  const generalError = formError(error, fields, ["user_id", "product_id", "option_id", "unit_price"]);
  return (
    <form onSubmit={submit} aria-labelledby="new-purchase-heading" class="panel" noValidate>
      <h2 id="new-purchase-heading">New purchase</h2>
      {generalError && (
        <p class="error" role="alert">
          {generalError}
        </p>
      )}
      <Field
        id="purchase-customer"
        label="Customer e-mail"
        type="email"
        error={messagesFor(fields, "user_id")}
        alert
        required
        autocomplete="off"
        value={email}
        onInput={(event) => setEmail(event.currentTarget.value)}
      />
      <SelectField
        id="purchase-product"
        label="Product"
        error={messagesFor(fields, "product_id")}
        alert
        required
        hint={products.length === 0 ? "No products yet: create one first." : undefined}
        value={productId}
        onChange={(event) => {
          setProductId(event.currentTarget.value);
          setOptionId("");
        }}
      >
        <option value="">Choose a product…</option>
        {products.map((product) => (
          <option key={product.id} value={String(product.id)}>
            {product.name}
          </option>
        ))}
      </SelectField>
      <SelectField
        id="purchase-option"
        label="Option"
        error={
          messagesFor(fields, "option_id") ??
          (options.loading.state === "failed" ? options.loading.message : null)
        }
        alert
        disabled={!productId || options.loading.state !== "loaded"}
        hint={productId ? undefined : "Choose a product first."}
        value={optionId}
        onChange={(event) => chooseOption(event.currentTarget.value)}
      >
        <option value="">No option</option>
        {options.loading.state === "loaded" &&
          options.loading.data.map((option) => (
            <option key={option.id} value={String(option.id)}>
              {option.name}
            </option>
          ))}
      </SelectField>
      <Field
        id="purchase-price"
        label="Price (USD)"
        error={messagesFor(fields, "unit_price")}
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
        {busy ? "Recording…" : "Record purchase"}
      </button>
    </form>
  );
}
