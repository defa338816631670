// The product fields the New product and Settings forms share: Name, Slug, Description, Hidden and
// Disabled, each with the 422's message beside it.
import type { ComponentChildren } from "preact";
import { Field } from "../field.tsx";
import { messagesFor } from "../submission.ts";

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
  values: ProductValues;
  onChange: (values: ProductValues) => void;
  fields: Record<string, string[]>;
  /** A new product's slug may be left empty: depot derives one from the name. */
  slugOptional?: boolean;
  /** Fields shown right after the name (the new product's Owner). */
  afterName?: ComponentChildren;
}

/** The request fields these inputs show errors for. */
export const PRODUCT_FIELDS = ["name", "slug", "description", "hidden", "disabled"];

export function ProductFields({ id, values, onChange, fields, slugOptional, afterName }: Props) {
  const set = <K extends keyof ProductValues>(key: K, value: ProductValues[K]) =>
    onChange({ ...values, [key]: value });
  const descriptionError = messagesFor(fields, "description");
  return (
    <>
      <Field
        id={`${id}-name`}
        label="Name"
        error={messagesFor(fields, "name")}
        alert
        required
        maxLength={255}
        autocomplete="off"
        value={values.name}
        onInput={(event) => set("name", event.currentTarget.value)}
      />
      {afterName}
      <Field
        id={`${id}-slug`}
        label="Slug"
        error={messagesFor(fields, "slug")}
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
        value={values.slug}
        onInput={(event) => set("slug", event.currentTarget.value)}
      />
      <label for={`${id}-description`}>Description</label>
      <textarea
        id={`${id}-description`}
        rows={3}
        maxLength={5000}
        value={values.description}
        aria-invalid={descriptionError ? true : undefined}
        aria-describedby={descriptionError ? `${id}-description-error` : undefined}
        onInput={(event) => set("description", event.currentTarget.value)}
      />
      {descriptionError && (
        <p id={`${id}-description-error`} class="field-error" role="alert">
          {descriptionError}
        </p>
      )}
      <div class="check">
        <input
          type="checkbox"
          id={`${id}-hidden`}
          checked={values.hidden}
          onChange={(event) => set("hidden", event.currentTarget.checked)}
        />
        <label for={`${id}-hidden`}>
          Hidden <span class="hint">Not listed; only its owner and admins see it.</span>
        </label>
      </div>
      <div class="check">
        <input
          type="checkbox"
          id={`${id}-disabled`}
          checked={values.disabled}
          onChange={(event) => set("disabled", event.currentTarget.checked)}
        />
        <label for={`${id}-disabled`}>
          Disabled <span class="hint">Not for sale, and hidden as above.</span>
        </label>
      </div>
    </>
  );
}

/** The values as the admin API takes them; an empty slug is left out where depot may derive one. */
export const productInput = (values: ProductValues, slugOptional = false) => ({
  name: values.name.trim(),
  slug: slugOptional && values.slug.trim() === "" ? undefined : values.slug.trim(),
  description: values.description,
  hidden: values.hidden,
  disabled: values.disabled,
});
