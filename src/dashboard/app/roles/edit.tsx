// Change a role: its name and its permissions, as the New role form asks them.
import type { Permission } from "../../../features/auth/permissions.ts";
import { Checkboxes, Field } from "../field.tsx";
import { useForm } from "../form.ts";
import { FormPanel } from "../form-panel.tsx";
import { grantableAbilities } from "../tokens/abilities.ts";
import type { Role, User } from "../wire.ts";
import { updateRole } from "./api.ts";

interface Props {
  user: User;
  role: Role;
  onSaved: (name: string) => void;
  onCancel: () => void;
}

export function EditRoleForm({ user, role, onSaved, onCancel }: Props) {
  const permissions = grantableAbilities(user);
  const form = useForm(
    { name: role.name, permissions: role.permissions as Permission[] },
    { failure: "Saving the role failed." },
  );
  const { values } = form;

  const submit = async (event: Event) => {
    event.preventDefault();
    const name = values.name.trim();
    if (await form.run(() => updateRole(role.id, { name, permissions: values.permissions }))) onSaved(name);
  };

  return (
    <div class="panel-frame">
      <FormPanel
        id={`edit-role-${role.id}`}
        heading={`Edit role ${role.name}`}
        form={form}
        onSubmit={submit}
        submit="Save role"
        busy="Saving…"
      >
        <Field
          id={`edit-role-${role.id}-name`}
          label="Name"
          {...form.input("name")}
          alert
          required
          maxLength={64}
          autocomplete="off"
          hint="Lower-case letters, digits, - and _."
        />
        <Checkboxes
          id={`edit-role-${role.id}-permissions`}
          legend="Permissions"
          name="permissions"
          itemPrefix={`edit-role-${role.id}-permission`}
          choices={permissions}
          chosen={values.permissions}
          onChange={(chosen) => form.set("permissions", chosen)}
          error={form.errorOf("permissions")}
        />
      </FormPanel>
      <button type="button" class="secondary" onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}
