import { useState } from "preact/hooks";
import { isolated } from "../bidi.ts";
import { SelectField } from "../field.tsx";
import { Layout } from "../layout.tsx";
import { useLoad } from "../load.ts";
import { Loaded } from "../loaded.tsx";
import type { PageProps } from "../pages.ts";
import { productPath } from "../paths.ts";
import { createProduct } from "../product-admin/api.ts";
import {
  EMPTY_PRODUCT,
  PRODUCT_FIELDS,
  ProductFields,
  type ProductValues,
  productInput,
} from "../product-admin/fields.tsx";
import { navigate } from "../router.ts";
import { isAdmin } from "../session.ts";
import { formError, messagesFor, useSubmission } from "../submission.ts";
import { productOwners } from "../users/api.ts";
import type { User } from "../wire.ts";

export function NewProduct({ user, onSignedOut }: PageProps) {
  return (
    <Layout user={user} title="New product" onSignedOut={onSignedOut}>
      {/* The admin API creates products; the server refuses anyone else anyway. */}
      {isAdmin(user) ? <OwnerLoader /> : <p class="error">This action is unauthorized.</p>}
    </Layout>
  );
}

function OwnerLoader() {
  const { loading } = useLoad(productOwners, "The users who may own products could not be loaded.");
  return (
    <Loaded loading={loading} label="Loading the form…">
      {(owners) => <NewProductForm owners={owners} />}
    </Loaded>
  );
}

function NewProductForm({ owners }: { owners: User[] }) {
  const [values, setValues] = useState<ProductValues>(EMPTY_PRODUCT);
  const [owner, setOwner] = useState("");
  const { busy, error, fields, run } = useSubmission("Creating the product failed.");

  const submit = async (event: Event) => {
    event.preventDefault();
    await run(async () => {
      const product = await createProduct({
        ...productInput(values, true),
        // No owner chosen: let the server's 422 say the field is required.
        user_id: owner ? Number(owner) : undefined,
      });
      navigate(productPath(product.id));
    });
  };

  const generalError = formError(error, fields, [...PRODUCT_FIELDS, "user_id"]);
  const ownerSelect = (
    <SelectField
      id="product-owner"
      label="Owner"
      error={messagesFor(fields, "user_id")}
      alert
      required
      hint={
        owners.length === 0
          ? "No vendors yet: create a user with the vendor role first."
          : "A vendor or an admin."
      }
      value={owner}
      onChange={(event) => setOwner(event.currentTarget.value)}
    >
      <option value="">Choose the owner…</option>
      {owners.map((candidate) => (
        <option key={candidate.id} value={String(candidate.id)}>
          {isolated(candidate.name)} ({isolated(candidate.email)}, {isolated(candidate.role.name)})
        </option>
      ))}
    </SelectField>
  );
  return (
    <form onSubmit={submit} aria-label="New product" class="panel" noValidate>
      {generalError && (
        <p class="error" role="alert">
          {generalError}
        </p>
      )}
      <ProductFields
        id="product"
        values={values}
        onChange={setValues}
        fields={fields}
        slugOptional
        afterName={ownerSelect}
      />
      <button type="submit" disabled={busy}>
        {busy ? "Creating…" : "Create product"}
      </button>
    </form>
  );
}
