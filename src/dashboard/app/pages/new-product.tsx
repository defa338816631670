import { isolated } from "../bidi.ts";
import { ErrorAlert } from "../error-alert.tsx";
import { SelectField } from "../field.tsx";
import { useForm } from "../form.ts";
import { Layout } from "../layout.tsx";
import { useLoad } from "../load.ts";
import { Loaded } from "../loaded.tsx";
import type { PageProps } from "../pages.ts";
import { productPath } from "../paths.ts";
import { createProduct } from "../product-admin/api.ts";
import { EMPTY_PRODUCT, ProductFields, productInput } from "../product-admin/fields.tsx";
import { navigate } from "../router.ts";
import { isAdmin } from "../session.ts";
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
  // `user_id` is the owner's id as the select holds it, or "" until one is chosen.
  const form = useForm({ ...EMPTY_PRODUCT, user_id: "" }, { failure: "Creating the product failed." });
  const { values } = form;

  const submit = async (event: Event) => {
    event.preventDefault();
    await form.run(async () => {
      const product = await createProduct({
        ...productInput(values, true),
        // No owner chosen: let the server's 422 say the field is required.
        user_id: values.user_id ? Number(values.user_id) : undefined,
      });
      navigate(productPath(product.id));
    });
  };

  const ownerSelect = (
    <SelectField
      id="product-owner"
      label="Owner"
      error={form.errorOf("user_id")}
      alert
      required
      hint={
        owners.length === 0
          ? "No vendors yet: create a user with the vendor role first."
          : "A vendor or an admin."
      }
      value={values.user_id}
      onChange={(event) => form.set("user_id", event.currentTarget.value)}
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
      <ErrorAlert message={form.summary} />
      <ProductFields id="product" form={form} slugOptional afterName={ownerSelect} />
      <button type="submit" disabled={form.busy}>
        {form.busy ? "Creating…" : "Create product"}
      </button>
    </form>
  );
}
