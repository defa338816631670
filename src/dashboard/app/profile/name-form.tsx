// Change your name: the server trims it and refuses an empty one (422, beside the field).
import { useState } from "preact/hooks";
import { ErrorAlert } from "../error-alert.tsx";
import { Field } from "../field.tsx";
import { useForm } from "../form.ts";
import { SuccessNotice } from "../notice.tsx";
import type { User } from "../wire.ts";
import { rename } from "./api.ts";

export function NameForm({ user, onSaved }: { user: User; onSaved: (user: User) => void }) {
  const form = useForm({ name: user.name }, { failure: "Saving your name failed." });
  const [saved, setSaved] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setSaved(false);
    if (await form.run(async () => onSaved(await rename(form.values.name)))) setSaved(true);
  };

  return (
    <form onSubmit={submit} class="panel" aria-labelledby="name-heading" noValidate>
      <h2 id="name-heading">Your name</h2>
      <ErrorAlert message={form.summary} />
      <Field
        id="profile-name"
        label="Name"
        {...form.input("name")}
        alert
        name="name"
        required
        maxLength={255}
        autocomplete="name"
      />
      {saved && <SuccessNotice onDismiss={() => setSaved(false)}>Your name is saved.</SuccessNotice>}
      <button type="submit" disabled={form.busy}>
        {form.busy ? "Saving…" : "Save name"}
      </button>
    </form>
  );
}
