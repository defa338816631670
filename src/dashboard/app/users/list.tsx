// The users found, each with name, e-mail and role; for admins, changing the role and making a
// set-password link, each beside the user it is for.
import { useState } from "preact/hooks";
import { messageOf } from "../api.ts";
import { SelectField } from "../field.tsx";
import type { More } from "../listing.ts";
import { ShowMore } from "../show-more.tsx";
import { messagesFor, useSubmission } from "../submission.ts";
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
  const [role, setRole] = useState(user.role.name);
  const { busy, error, fields, run } = useSubmission("Changing the role failed.");
  const roleError = messagesFor(fields, "role") ?? error;
  const id = `user-${user.id}-role`;

  const submit = async (event: Event) => {
    event.preventDefault();
    if (await run(async () => void (await updateUser(user.id, { role })))) onChanged();
  };

  return (
    <form class="inline-form" onSubmit={submit} aria-label={`Change the role of ${user.name}`}>
      <SelectField
        id={id}
        label="Change role"
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
      <button
        type="submit"
        disabled={busy || role === user.role.name}
        aria-label={`Save the role of ${user.name}`}
      >
        {busy ? "Saving…" : "Save"}
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
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {link && <ShownLink id={`user-${user.id}-link`} email={user.email} link={link} />}
    </div>
  );
}
