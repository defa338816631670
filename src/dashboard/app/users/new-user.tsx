// Create a user (Name, Email, Role), then a set-password link for them, shown once (the Users page shows
// CreatedUser in place of its New user panel). A 422 shows beside its field; a link that could not be
// made is said, and the list's button makes another.
import { messageOf } from "../api.ts";
import { CreatedPanel } from "../created-panel.tsx";
import { Field } from "../field.tsx";
import { useForm } from "../form.ts";
import { FormPanel } from "../form-panel.tsx";
import { RoleSelect } from "../roles/select.tsx";
import type { PasswordLink, Role, User } from "../wire.ts";
import { createPasswordLink, createUser } from "./api.ts";
import { ShownLink } from "./link.tsx";

export interface Created {
  user: User;
  link: PasswordLink | null;
  linkError: string | null;
}

export function NewUserForm({ roles, onCreated }: { roles: Role[]; onCreated: (created: Created) => void }) {
  const form = useForm({ name: "", email: "", role: "customer" }, { failure: "Creating the user failed." });
  const { values } = form;

  const submit = async (event: Event) => {
    event.preventDefault();
    await form.run(async () => {
      const user = await createUser({
        name: values.name.trim(),
        email: values.email.trim(),
        role: values.role,
      });
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

  return (
    <FormPanel
      id="new-user"
      heading="New user"
      form={form}
      onSubmit={submit}
      submit="Create user"
      busy="Creating…"
    >
      <Field
        id="new-user-name"
        label="Name"
        {...form.input("name")}
        alert
        required
        maxLength={255}
        autocomplete="off"
      />
      <Field
        id="new-user-email"
        label="Email"
        type="email"
        {...form.input("email")}
        alert
        required
        maxLength={255}
        autocomplete="off"
      />
      <RoleSelect
        id="new-user-role"
        label="Role"
        roles={roles}
        value={values.role}
        error={form.errorOf("role")}
        onChange={(role) => form.set("role", role)}
      />
    </FormPanel>
  );
}

export function CreatedUser({ created, onDone }: { created: Created; onDone: () => void }) {
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
