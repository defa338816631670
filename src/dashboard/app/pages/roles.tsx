import { Layout } from "../layout.tsx";
import { useLoad } from "../load.ts";
import { Loaded } from "../loaded.tsx";
import type { PageProps } from "../pages.ts";
import { listRoles } from "../roles/api.ts";
import { NewRoleForm } from "../roles/form.tsx";
import { RoleList } from "../roles/list.tsx";
import { isAdmin } from "../session.ts";

export function Roles({ user, onSignedOut }: PageProps) {
  const { loading, reload } = useLoad(listRoles, "The roles could not be loaded.");
  return (
    <Layout user={user} title="Roles" onSignedOut={onSignedOut}>
      <p>A role is what its users may do; a user has one role. Admins may do everything.</p>
      {isAdmin(user) && <NewRoleForm user={user} onCreated={() => void reload()} />}
      <section aria-labelledby="role-list-heading" aria-busy={loading.state === "loading"}>
        <h2 id="role-list-heading">Roles</h2>
        <Loaded loading={loading} label="Loading roles…">
          {(roles) => <RoleList roles={roles} />}
        </Loaded>
      </section>
    </Layout>
  );
}
