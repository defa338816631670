// Change a product's name, slug, description and flags (PATCH); a 422 shows beside its field.
import { useState } from "preact/hooks";
import { ErrorAlert } from "../error-alert.tsx";
import { useForm } from "../form.ts";
import { SuccessNotice } from "../notice.tsx";
import type { Product } from "../wire.ts";
import { updateProduct } from "./api.ts";
import { ProductFields, type ProductValues, productInput } from "./fields.tsx";

const valuesOf = (product: Product): ProductValues => ({
  name: product.name,
  slug: product.slug,
  description: product.description,
  hidden: product.hidden === "1",
  disabled: product.disabled === "1",
});

export function ProductSettingsForm({
  product,
  onSaved,
}: {
  product: Product;
  onSaved: (p: Product) => void;
}) {
  const form = useForm(valuesOf(product), { failure: "Saving the product failed." });
  // The values last saved: "Saved." is about them, and goes once anything is changed.
  const [saved, setSaved] = useState<ProductValues | null>(null);

  const submit = async (event: Event) => {
    event.preventDefault();
    const { values } = form;
    setSaved(null);
    if (await form.run(async () => onSaved(await updateProduct(product.id, productInput(values)))))
      setSaved(values);
  };

  return (
    <form onSubmit={submit} aria-labelledby="product-details-heading" class="panel" noValidate>
      <h2 id="product-details-heading">Details</h2>
      <ErrorAlert message={form.summary} />
      <ProductFields id="settings" form={form} />
      <button type="submit" disabled={form.busy}>
        {form.busy ? "Saving…" : "Save changes"}
      </button>
      {saved === form.values && <SuccessNotice onDismiss={() => setSaved(null)}>Saved.</SuccessNotice>}
    </form>
  );
}
