// Create a role: a name and one checkbox per permission (the server's list, with what each allows).
import { useState } from "preact/hooks";
import type { Permission } from "../../../features/auth/permissions.ts";
import { Field } from "../field.tsx";
import { messagesFor, useSubmission } from "../submission.ts";
import { grantableAbilities } from "../tokens/abilities.ts";
import type { User } from "../wire.ts";
import { createRole } from "./api.ts";

export function NewRoleForm({ user, onCreated }: { user: User; onCreated: () => void }) {
  // An admin may grant every permission, so this is the whole list.
  const permissions = grantableAbilities(user);
  const [name, setName] = useState("");
  const [chosen, setChosen] = useState<Permission[]>([]);
  const { busy, error, fields, run } = useSubmission("Creating the role failed.");

  const submit = async (event: Event) => {
    event.preventDefault();
    if (await run(() => createRole({ name: name.trim(), permissions: chosen }))) {
      setName("");
      setChosen([]);
      onCreated();
    }
  };
  const toggle = (permission: Permission, on: boolean) =>
    setChosen((current) => (on ? [...current, permission] : current.filter((p) => p !== permission)));

  const nameError = messagesFor(fields, "name");
  const permissionsError = messagesFor(fields, "permissions");
  const generalError = error && !nameError && !permissionsError ? error : null;

  return (
    <form onSubmit={submit} aria-labelledby="new-role-heading" class="panel" noValidate>
      <h2 id="new-role-heading">New role</h2>
      {generalError && (
        <p class="error" role="alert">
          {generalError}
        </p>
      )}
      <Field
        id="role-name"
        label="Name"
        error={nameError}
        alert
        required
        maxLength={64}
        autocomplete="off"
        hint="Lower-case letters, digits, - and _, e.g. support."
        value={name}
        onInput={(event) => setName(event.currentTarget.value)}
      />
      <fieldset aria-describedby={permissionsError ? "role-permissions-error" : undefined}>
        <legend>Permissions</legend>
        {permissions.map((permission) => (
          <div class="check" key={permission.name}>
            <input
              type="checkbox"
              id={`permission-${permission.name}`}
              value={permission.name}
              checked={chosen.includes(permission.name)}
              onChange={(event) => toggle(permission.name, event.currentTarget.checked)}
            />
            <label for={`permission-${permission.name}`}>
              <code>{permission.name}</code> <span class="hint">{permission.description}</span>
            </label>
          </div>
        ))}
        {permissionsError && (
          <p id="role-permissions-error" class="field-error" role="alert">
            {permissionsError}
          </p>
        )}
      </fieldset>
      <button type="submit" disabled={busy}>
        {busy ? "Creating…" : "Create role"}
      </button>
    </form>
  );
}
