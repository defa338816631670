// Create a license API key: a name, and optionally the user (a vendor) it acts for alone.
import { isolated } from "../bidi.ts";
import { Field, SelectField } from "../field.tsx";
import { useForm } from "../form.ts";
import { FormPanel } from "../form-panel.tsx";
import type { NewApiKey, User } from "../wire.ts";
import { createApiKey } from "./api.ts";

export function NewApiKeyForm({
  owners,
  onCreated,
}: {
  owners: User[];
  onCreated: (key: NewApiKey) => void;
}) {
  // `creator_id` is a user's id as the select holds it, or "" for none.
  const form = useForm({ name: "", creator_id: "" }, { failure: "Creating the API key failed." });
  const { values } = form;

  const submit = async (event: Event) => {
    event.preventDefault();
    const request = {
      name: values.name.trim(),
      creator_id: values.creator_id ? Number(values.creator_id) : null,
    };
    if (await form.run(async () => onCreated(await createApiKey(request)))) form.reset();
  };

  return (
    <FormPanel
      id="new-api-key"
      heading="New API key"
      form={form}
      onSubmit={submit}
      submit="Create API key"
      busy="Creating…"
    >
      <Field
        id="api-key-name"
        label="Name"
        {...form.input("name")}
        alert
        required
        maxLength={255}
        autocomplete="off"
        placeholder="e.g. Storefront checkout"
      />
      <SelectField
        id="api-key-creator"
        label="Creator"
        error={form.errorOf("creator_id")}
        alert
        hint="With a creator, the key sees and makes only that user's licenses; without one, every license."
        value={values.creator_id}
        onChange={(event) => form.set("creator_id", event.currentTarget.value)}
      >
        <option value="">None: all creators</option>
        {owners.map((owner) => (
          <option key={owner.id} value={String(owner.id)}>
            {isolated(owner.name)} ({isolated(owner.email)})
          </option>
        ))}
      </SelectField>
    </FormPanel>
  );
}
