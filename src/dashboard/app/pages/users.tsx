import { useState } from "preact/hooks";
import { Field } from "../field.tsx";
import { Layout } from "../layout.tsx";
import { useListing } from "../listing.ts";
import { useLoad } from "../load.ts";
import { Loaded } from "../loaded.tsx";
import { NewPanel } from "../new-panel.tsx";
import type { PageProps } from "../pages.ts";
import { listRoles } from "../roles/api.ts";
import { isAdmin } from "../session.ts";
import { listUsers } from "../users/api.ts";
import { UserList } from "../users/list.tsx";
import { type Created, CreatedUser, NewUserForm } from "../users/new-user.tsx";
import type { Role } from "../wire.ts";

/** Admins manage users; users.view may look them up. Anyone else sees the API's refusal. */
export function Users({ user, onSignedOut }: PageProps) {
  const admin = isAdmin(user);
  const [typed, setTyped] = useState("");
  // The user just made and their set-password link, shown once in place of New user.
  const [created, setCreated] = useState<Created | null>(null);
  const [search, setSearch] = useState("");
  const { loading, reload, more } = useListing(
    () => listUsers({ search }),
    "The users could not be loaded.",
    [search],
  );
  // Only admins change roles: nobody else is asked for the role list (they would be refused it).
  const roles = useLoad<Role[] | null>(
    () => (admin ? listRoles() : Promise.resolve(null)),
    "The roles could not be loaded.",
  );

  return (
    <Layout user={user} title="Users" onSignedOut={onSignedOut}>
      {admin &&
        (created ? (
          <CreatedUser created={created} onDone={() => setCreated(null)} />
        ) : (
          <NewPanel label="New user">
            {() => (
              <Loaded loading={roles.loading} label="Loading roles…">
                {(list) =>
                  list && (
                    <NewUserForm
                      roles={list}
                      onCreated={(result) => {
                        setCreated(result);
                        void reload();
                      }}
                    />
                  )
                }
              </Loaded>
            )}
          </NewPanel>
        ))}
      <section aria-labelledby="user-list-heading" aria-busy={loading.state === "loading"}>
        <h2 id="user-list-heading">Users</h2>
        <form
          class="search"
          aria-label="Search users"
          onSubmit={(event) => {
            event.preventDefault();
            setSearch(typed.trim());
          }}
        >
          <Field
            id="user-search"
            label="Search by name or e-mail"
            error={null}
            type="search"
            maxLength={255}
            value={typed}
            onInput={(event) => setTyped(event.currentTarget.value)}
          />
          <button type="submit">Search</button>
        </form>
        <Loaded loading={loading} label="Loading users…">
          {({ items }) => (
            <UserList
              users={items}
              more={more}
              roles={roles.loading.state === "loaded" ? roles.loading.data : null}
              onChanged={() => void reload()}
            />
          )}
        </Loaded>
      </section>
    </Layout>
  );
}
