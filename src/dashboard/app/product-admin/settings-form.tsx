// Change a product's name, slug, description and flags (PATCH); a 422 shows beside its field.
import { useState } from "preact/hooks";
import { formError, useSubmission } from "../submission.ts";
import type { Product } from "../wire.ts";
import { updateProduct } from "./api.ts";
import { PRODUCT_FIELDS, ProductFields, type ProductValues, productInput } from "./fields.tsx";

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
  const [values, setValues] = useState(valuesOf(product));
  const [saved, setSaved] = useState(false);
  const { busy, error, fields, run } = useSubmission("Saving the product failed.");

  const submit = async (event: Event) => {
    event.preventDefault();
    setSaved(false);
    const ok = await run(async () => onSaved(await updateProduct(product.id, productInput(values))));
    setSaved(ok);
  };
  const generalError = formError(error, fields, PRODUCT_FIELDS);

  return (
    <form onSubmit={submit} aria-labelledby="product-details-heading" class="panel" noValidate>
      <h2 id="product-details-heading">Details</h2>
      {generalError && (
        <p class="error" role="alert">
          {generalError}
        </p>
      )}
      <ProductFields
        id="settings"
        values={values}
        onChange={(next) => {
          setValues(next);
          setSaved(false);
        }}
        fields={fields}
      />
      <button type="submit" disabled={busy}>
        {busy ? "Saving…" : "Save changes"}
      </button>
      <p class="hint" aria-live="polite">
        {saved && "Saved."}
      </p>
    </form>
  );
}
