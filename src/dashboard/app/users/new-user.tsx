// Create a user (Name, Email, Role), then a set-password link for them, shown once. A 422 shows
// beside its field; a link that could not be made is said, and the list's button makes another.
import { useState } from "preact/hooks";
import { messageOf } from "../api.ts";
import { CreatedPanel } from "../created-panel.tsx";
import { Field, SelectField } from "../field.tsx";
import { messagesFor, useSubmission } from "../submission.ts";
import type { PasswordLink, Role, User } from "../wire.ts";
import { createPasswordLink, createUser } from "./api.ts";
import { ShownLink } from "./link.tsx";

interface Created {
  user: User;
  link: PasswordLink | null;
  linkError: string | null;
}

export function NewUser({ roles, onCreated }: { roles: Role[]; onCreated: () => void }) {
  const [created, setCreated] = useState<Created | null>(null);
  if (created) return <CreatedUser created={created} onDone={() => setCreated(null)} />;
  return (
    <NewUserForm
      roles={roles}
      onCreated={(result) => {
        setCreated(result);
        onCreated();
      }}
    />
  );
}

function NewUserForm({ roles, onCreated }: { roles: Role[]; onCreated: (created: Created) => void }) {
  const [name, setName] = useState("");
  const [email, setEmail] = useState("");
  const [role, setRole] = useState("customer");
  const { busy, error, fields, run } = useSubmission("Creating the user failed.");

  const submit = async (event: Event) => {
    event.preventDefault();
    await run(async () => {
      const user = await createUser({ name: name.trim(), email: email.trim(), role });
      // The user exists now: a failing link is reported, not treated as a failed creation.
      try {
        onCreated({ user, link: await createPasswordLink(user.id), linkError: null });
      } catch (failure) {
        onCreated({
          user,
          link: null,
          linkError: messageOf(failure, "The set-password link could not be made."),
        });
      }
    });
  };

  const nameError = messagesFor(fields, "name");
  const emailError = messagesFor(fields, "email");
  const roleError = messagesFor(fields, "role");
  const generalError = error && !nameError && !emailError && !roleError ? error : null;

  return (
    <form onSubmit={submit} aria-labelledby="new-user-heading" class="panel" noValidate>
      <h2 id="new-user-heading">New user</h2>
      {generalError && (
        <p class="error" role="alert">
          {generalError}
        </p>
      )}
      <Field
        id="new-user-name"
        label="Name"
        error={nameError}
        alert
        required
        maxLength={255}
        autocomplete="off"
        value={name}
        onInput={(event) => setName(event.currentTarget.value)}
      />
      <Field
        id="new-user-email"
        label="Email"
        type="email"
        error={emailError}
        alert
        required
        maxLength={255}
        autocomplete="off"
        value={email}
        onInput={(event) => setEmail(event.currentTarget.value)}
      />
      <SelectField
        id="new-user-role"
        label="Role"
        error={roleError}
        alert
        value={role}
        onChange={(event) => setRole(event.currentTarget.value)}
      >
        {roles.map((r) => (
          <option key={r.id} value={r.name}>
            {r.name}
          </option>
        ))}
      </SelectField>
      <button type="submit" disabled={busy}>
        {busy ? "Creating…" : "Create user"}
      </button>
    </form>
  );
}

function CreatedUser({ created, onDone }: { created: Created; onDone: () => void }) {
  const { user, link, linkError } = created;
  return (
    <CreatedPanel
      id="created-user"
      heading={
        <>
          User “<bdi>{user.name}</bdi>” created
        </>
      }
      onDone={onDone}
    >
      {link && <ShownLink id="created-user-link" email={user.email} link={link} />}
      {linkError && (
        <p class="error" role="alert">
          {linkError} Use “Set-password link” beside them in the list to try again.
        </p>
      )}
    </CreatedPanel>
  );
}
