// Create a role: a name and one checkbox per permission (the server's list, with what each allows).
import type { Permission } from "../../../features/auth/permissions.ts";
import { Checkboxes, Field } from "../field.tsx";
import { useForm } from "../form.ts";
import { FormPanel } from "../form-panel.tsx";
import { grantableAbilities } from "../tokens/abilities.ts";
import type { User } from "../wire.ts";
import { createRole } from "./api.ts";

export function NewRoleForm({ user, onCreated }: { user: User; onCreated: (name: string) => void }) {
  // An admin may grant every permission, so this is the whole list.
  const permissions = grantableAbilities(user);
  const form = useForm(
    { name: "", permissions: [] as Permission[] },
    { failure: "Creating the role failed." },
  );
  const { values } = form;

  const submit = async (event: Event) => {
    event.preventDefault();
    const name = values.name.trim();
    if (await form.run(() => createRole({ name, permissions: values.permissions }))) {
      form.reset();
      onCreated(name);
    }
  };

  return (
    <FormPanel
      id="new-role"
      heading="New role"
      form={form}
      onSubmit={submit}
      submit="Create role"
      busy="Creating…"
    >
      <Field
        id="role-name"
        label="Name"
        {...form.input("name")}
        alert
        required
        maxLength={64}
        autocomplete="off"
        hint="Lower-case letters, digits, - and _, e.g. support."
      />
      <Checkboxes
        id="role-permissions"
        legend="Permissions"
        name="permissions"
        itemPrefix="permission"
        choices={permissions}
        chosen={values.permissions}
        onChange={(chosen) => form.set("permissions", chosen)}
        error={form.errorOf("permissions")}
      />
    </FormPanel>
  );
}
