// Record a purchase (admins): the customer by e-mail, the product and one of its options, the price.
// The server's 422s show beside the field they are about (user_id beside the e-mail).
import { ApiError } from "../api.ts";
import { Field, SelectField } from "../field.tsx";
import { useForm } from "../form.ts";
import { FormPanel } from "../form-panel.tsx";
import { useLoad } from "../load.ts";
import { listOptions, priceOf } from "../product-admin/api.ts";
import { PriceField } from "../product-admin/price-field.tsx";
import { userByEmail } from "../users/api.ts";
import type { Option, Product } from "../wire.ts";
import { createPurchase } from "./api.ts";

const NO_USER = "No user has this e-mail address.";

/** The form's inputs, by the request field each fills (the e-mail finds `user_id`); ids as the selects hold them. */
const EMPTY = { user_id: "", product_id: "", option_id: "", unit_price: "" };

export function NewPurchaseForm({ products, onCreated }: { products: Product[]; onCreated: () => void }) {
  const form = useForm(EMPTY, { failure: "Recording the purchase failed." });
  const { values } = form;
  const options = useLoad<Option[]>(
    () => (values.product_id ? listOptions(values.product_id) : Promise.resolve([])),
    "The product's options could not be loaded.",
    [values.product_id],
  );

  const chooseProduct = (id: string) => {
    form.set("product_id", id);
    form.set("option_id", "");
  };
  const chooseOption = (id: string) => {
    form.set("option_id", id);
    // The option's list price is the likely price; it stays editable.
    const option =
      options.loading.state === "loaded" ? options.loading.data.find((o) => String(o.id) === id) : null;
    if (option) form.set("unit_price", option.price.toFixed(2));
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    const recorded = await form.run(async () => {
      const customer = await userByEmail(values.user_id);
      if (!customer) throw new ApiError(422, NO_USER, { user_id: [NO_USER] });
      await createPurchase({
        user_id: customer.id,
        product_id: values.product_id ? Number(values.product_id) : undefined,
        option_id: values.option_id ? Number(values.option_id) : null,
        unit_price: priceOf(values.unit_price),
      });
    });
    if (recorded) {
      form.reset();
      onCreated();
    }
  };

  return (
    <FormPanel
      id="new-purchase"
      heading="New purchase"
      form={form}
      onSubmit={submit}
      submit="Record purchase"
      busy="Recording…"
    >
      <Field
        id="purchase-customer"
        label="Customer e-mail"
        type="email"
        {...form.input("user_id")}
        alert
        required
        autocomplete="off"
      />
      <SelectField
        id="purchase-product"
        label="Product"
        error={form.errorOf("product_id")}
        alert
        required
        hint={products.length === 0 ? "No products yet: create one first." : undefined}
        value={values.product_id}
        onChange={(event) => chooseProduct(event.currentTarget.value)}
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
          form.errorOf("option_id") ?? (options.loading.state === "failed" ? options.loading.message : null)
        }
        alert
        disabled={!values.product_id || options.loading.state !== "loaded"}
        hint={values.product_id ? undefined : "Choose a product first."}
        value={values.option_id}
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
      <PriceField id="purchase-price" label="Price (USD)" {...form.input("unit_price")} />
    </FormPanel>
  );
}
