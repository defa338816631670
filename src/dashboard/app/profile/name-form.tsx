// Change your name: the server trims it and refuses an empty one (422, beside the field).
import { useState } from "preact/hooks";
import { Field } from "../field.tsx";
import { useSubmission } from "../submission.ts";
import type { User } from "../wire.ts";
import { rename } from "./api.ts";

export function NameForm({ user, onSaved }: { user: User; onSaved: (user: User) => void }) {
  const [name, setName] = useState(user.name);
  const [saved, setSaved] = useState(false);
  const { busy, error, fields, run } = useSubmission("Saving your name failed.");

  const submit = async (event: Event) => {
    event.preventDefault();
    setSaved(false);
    if (await run(async () => onSaved(await rename(name)))) setSaved(true);
  };

  const nameError = fields.name?.join(" ") ?? null;
  return (
    <form onSubmit={submit} class="panel" aria-labelledby="name-heading" noValidate>
      <h2 id="name-heading">Your name</h2>
      {error && !nameError && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <Field
        id="profile-name"
        label="Name"
        error={nameError}
        alert
        name="name"
        required
        maxLength={255}
        autocomplete="name"
        value={name}
        onInput={(event) => setName(event.currentTarget.value)}
      />
      <p aria-live="polite" class="hint">
        {saved && "Your name is saved."}
      </p>
      <button type="submit" disabled={busy}>
        {busy ? "Saving…" : "Save name"}
      </button>
    </form>
  );
}
