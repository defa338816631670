// Create a license API key: a name, and optionally the user (a vendor) it acts for alone.

import { useState } from "preact/hooks";
import { isolated } from "../bidi.ts";
import { Field, SelectField } from "../field.tsx";
import { messagesFor, useSubmission } from "../submission.ts";
import type { NewApiKey, User } from "../wire.ts";
import { createApiKey } from "./api.ts";

export function NewApiKeyForm({
  owners,
  onCreated,
}: {
  owners: User[];
  onCreated: (key: NewApiKey) => void;
}) {
  const [name, setName] = useState("");
  const [creator, setCreator] = useState("");
  const { busy, error, fields, run } = useSubmission("Creating the API key failed.");

  const submit = async (event: Event) => {
    event.preventDefault();
    const created = await run(async () =>
      onCreated(await createApiKey({ name: name.trim(), creator_id: creator ? Number(creator) : null })),
    );
    if (created) {
      setName("");
      setCreator("");
    }
  };

  const nameError = messagesFor(fields, "name");
  const creatorError = messagesFor(fields, "creator_id");
  const generalError = error && !nameError && !creatorError ? error : null;

  return (
    <form onSubmit={submit} aria-labelledby="new-api-key-heading" class="panel" noValidate>
      <h2 id="new-api-key-heading">New API key</h2>
      {generalError && (
        <p class="error" role="alert">
          {generalError}
        </p>
      )}
      <Field
        id="api-key-name"
        label="Name"
        error={nameError}
        alert
        required
        maxLength={255}
        autocomplete="off"
        placeholder="e.g. Storefront checkout"
        value={name}
        onInput={(event) => setName(event.currentTarget.value)}
      />
      <SelectField
        id="api-key-creator"
        label="Creator"
        error={creatorError}
        alert
        hint="With a creator, the key sees and makes only that user's licenses; without one, every license."
        value={creator}
        onChange={(event) => setCreator(event.currentTarget.value)}
      >
        <option value="">None: all creators</option>
        {owners.map((owner) => (
          <option key={owner.id} value={String(owner.id)}>
            {isolated(owner.name)} ({isolated(owner.email)})
          </option>
        ))}
      </SelectField>
      <button type="submit" disabled={busy}>
        {busy ? "Creating…" : "Create API key"}
      </button>
    </form>
  );
}
