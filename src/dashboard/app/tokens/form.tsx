// Create a token: a name and the abilities to give it; a 422 shows beside the field it is about.
import type { Permission } from "../../../features/auth/permissions.ts";
import { Checkboxes, Field } from "../field.tsx";
import { useForm } from "../form.ts";
import { FormPanel } from "../form-panel.tsx";
import type { NewToken, User } from "../wire.ts";
import { grantableAbilities } from "./abilities.ts";
import { createToken } from "./api.ts";

export function NewTokenForm({ user, onCreated }: { user: User; onCreated: (token: NewToken) => void }) {
  const abilities = grantableAbilities(user);
  const form = useForm(
    { name: "", abilities: [] as Permission[] },
    { failure: "Creating the token failed." },
  );
  const { values } = form;

  const submit = async (event: Event) => {
    event.preventDefault();
    const request = { name: values.name.trim(), abilities: values.abilities };
    if (await form.run(async () => onCreated(await createToken(request)))) form.reset();
  };

  return (
    <FormPanel
      id="new-token"
      heading="New token"
      form={form}
      onSubmit={submit}
      submit="Create token"
      busy="Creating…"
    >
      <Field
        id="token-name"
        label="Name"
        {...form.input("name")}
        alert
        name="name"
        required
        maxLength={255}
        autocomplete="off"
        placeholder="e.g. GitHub Actions publish"
      />
      <Checkboxes
        id="token-abilities"
        legend="Abilities"
        name="abilities"
        itemPrefix="ability"
        hint={
          abilities.length === 0
            ? "Your role has no permissions to give; the token can read what any signed-in user can (your purchases, notifications and tokens)."
            : "Give it only what it needs. None checked: it can read only what any signed-in user can."
        }
        choices={abilities}
        chosen={values.abilities}
        onChange={(chosen) => form.set("abilities", chosen)}
        error={form.errorOf("abilities")}
      />
    </FormPanel>
  );
}
