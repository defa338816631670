// The product fields the New product and Settings forms share: Name, Slug, Description, Hidden and
// Disabled, each with the 422's message beside it.
import type { ComponentChildren } from "preact";
import { Field, TextAreaField } from "../field.tsx";
import type { Form } from "../form.ts";
import type { ProductChange } from "../wire.ts";

export interface ProductValues {
  name: string;
  slug: string;
  description: string;
  hidden: boolean;
  disabled: boolean;
}

export const EMPTY_PRODUCT: ProductValues = {
  name: "",
  slug: "",
  description: "",
  hidden: false,
  disabled: false,
};

interface Props {
  /** Prefix of the fields' ids, unique on the page. */
  id: string;
  form: Pick<Form<ProductValues>, "values" | "set" | "input">;
  /** A new product's slug may be left empty: depot derives one from the name. */
  slugOptional?: boolean;
  /** Fields shown right after the name (the new product's Owner). */
  afterName?: ComponentChildren;
}

export function ProductFields({ id, form, slugOptional, afterName }: Props) {
  return (
    <>
      <Field
        id={`${id}-name`}
        label="Name"
        {...form.input("name")}
        alert
        required
        maxLength={255}
        autocomplete="off"
      />
      {afterName}
      <Field
        id={`${id}-slug`}
        label="Slug"
        {...form.input("slug")}
        alert
        required={!slugOptional}
        maxLength={255}
        autocomplete="off"
        spellcheck={false}
        hint={
          slugOptional
            ? "The storefront address: lower-case letters, digits and dashes. Empty: made from the name."
            : "The storefront address: lower-case letters, digits and dashes."
        }
      />
      <TextAreaField
        id={`${id}-description`}
        label="Description"
        {...form.input("description")}
        alert
        rows={3}
        maxLength={5000}
      />
      <div class="check">
        <input
          type="checkbox"
          id={`${id}-hidden`}
          checked={form.values.hidden}
          onChange={(event) => form.set("hidden", event.currentTarget.checked)}
        />
        <label for={`${id}-hidden`}>
          Hidden <span class="hint">Not listed; only its owner and admins see it.</span>
        </label>
      </div>
      <div class="check">
        <input
          type="checkbox"
          id={`${id}-disabled`}
          checked={form.values.disabled}
          onChange={(event) => form.set("disabled", event.currentTarget.checked)}
        />
        <label for={`${id}-disabled`}>
          Disabled <span class="hint">Not for sale, and hidden as above.</span>
        </label>
      </div>
    </>
  );
}

/** The values as the admin API takes them; an empty slug is left out where depot may derive one. */
export const productInput = (values: ProductValues, slugOptional = false): ProductChange => ({
  name: values.name.trim(),
  slug: slugOptional && values.slug.trim() === "" ? undefined : values.slug.trim(),
  description: values.description,
  hidden: values.hidden,
  disabled: values.disabled,
});
