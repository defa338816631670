// The users found, each with name, e-mail and role; for admins, changing the role and making a
// set-password link, each beside the user it is for.
import { useState } from "preact/hooks";
import { messageOf } from "../api.ts";
import { ErrorAlert } from "../error-alert.tsx";
import { useForm } from "../form.ts";
import type { More } from "../listing.ts";
import { RoleSelect } from "../roles/select.tsx";
import { ShowMore } from "../show-more.tsx";
import type { PasswordLink, Role, User } from "../wire.ts";
import { createPasswordLink, updateUser } from "./api.ts";
import { ShownLink } from "./link.tsx";

interface Props {
  users: User[];
  more: More;
  /** The roles to choose from; null: the reader may only look (users.view). */
  roles: Role[] | null;
  onChanged: () => void;
}

export function UserList({ users, more, roles, onChanged }: Props) {
  if (users.length === 0)
    return <p class="empty">No users match. Try another search, or create one above.</p>;
  return (
    <>
      <ul class="rows">
        {users.map((user) => (
          <li key={user.id} class="row">
            <div class="row-main">
              <strong class="row-name" dir="auto">
                {user.name}
              </strong>
              <span class="hint" dir="auto">
                {user.email}
              </span>
              <span class="hint">
                Role: <bdi>{user.role.name}</bdi>
              </span>
            </div>
            {roles && (
              <div class="row-actions stacked">
                <ChangeRole user={user} roles={roles} onChanged={onChanged} />
                <LinkButton user={user} />
              </div>
            )}
          </li>
        ))}
      </ul>
      <ShowMore more={more} noun="users" />
    </>
  );
}

function ChangeRole({ user, roles, onChanged }: { user: User; roles: Role[]; onChanged: () => void }) {
  const form = useForm({ role: user.role.name }, { failure: "Changing the role failed." });
  const { role } = form.values;

  const submit = async (event: Event) => {
    event.preventDefault();
    if (await form.run(async () => void (await updateUser(user.id, { role })))) onChanged();
  };

  return (
    <form class="inline-form" onSubmit={submit} aria-label={`Change the role of ${user.name}`}>
      {/* A refusal that is not about the role (depot needs an admin, say) is said here too: this
          small form has no room above it. */}
      <RoleSelect
        id={`user-${user.id}-role`}
        label="Change role"
        roles={roles}
        value={role}
        error={form.errorOf("role") ?? form.summary}
        onChange={(chosen) => form.set("role", chosen)}
      />
      <button
        type="submit"
        disabled={form.busy || role === user.role.name}
        aria-label={`Save the role of ${user.name}`}
      >
        {form.busy ? "Saving…" : "Save"}
      </button>
    </form>
  );
}

function LinkButton({ user }: { user: User }) {
  const [link, setLink] = useState<PasswordLink | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const make = async () => {
    setBusy(true);
    setError(null);
    try {
      setLink(await createPasswordLink(user.id));
    } catch (failure) {
      setError(messageOf(failure, "The set-password link could not be made."));
    }
    setBusy(false);
  };

  return (
    <div>
      <button
        type="button"
        class="secondary"
        onClick={make}
        disabled={busy}
        aria-label={`Set-password link for ${user.name}`}
      >
        {busy ? "Making a link…" : "Set-password link"}
      </button>
      <ErrorAlert message={error} />
      {link && <ShownLink id={`user-${user.id}-link`} email={user.email} link={link} />}
    </div>
  );
}
