import { useState } from "preact/hooks";
import { messageOf } from "../api.ts";
import { isolated } from "../bidi.ts";
import { ErrorAlert } from "../error-alert.tsx";
import { Layout } from "../layout.tsx";
import { useLoad } from "../load.ts";
import { Loaded } from "../loaded.tsx";
import { SuccessNotice } from "../notice.tsx";
import type { PageProps } from "../pages.ts";
import { deleteRole, listRoles } from "../roles/api.ts";
import { EditRoleForm } from "../roles/edit.tsx";
import { NewRoleForm } from "../roles/form.tsx";
import { RoleList } from "../roles/list.tsx";
import type { Role } from "../wire.ts";

/** Which panel is open: none, New role, or one role's edit form. */
type Panel = { kind: "none" } | { kind: "new" } | { kind: "edit"; role: Role };

export function Roles({ user, onSignedOut }: PageProps) {
  const { loading, reload } = useLoad(listRoles, "The roles could not be loaded.");
  const [panel, setPanel] = useState<Panel>({ kind: "none" });
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<number | null>(null);

  const done = (message: string) => {
    setPanel({ kind: "none" });
    setNotice(message);
    setError(null);
    void reload();
  };

  const remove = async (role: Role) => {
    if (!confirm(`Delete the role “${isolated(role.name)}”?`)) return;
    setDeleting(role.id);
    setNotice(null);
    setError(null);
    try {
      await deleteRole(role.id);
      done(`The role ${role.name} is deleted.`);
    } catch (failure) {
      setError(messageOf(failure, "Deleting the role failed."));
    } finally {
      setDeleting(null);
    }
  };

  return (
    <Layout user={user} title="Roles" onSignedOut={onSignedOut}>
      <p>
        A role is what its users may do; a user has one role. Admins may do everything. The built-in admin,
        vendor and customer roles stay as they are.
      </p>
      {notice && (
        <SuccessNotice onDismiss={() => setNotice(null)}>
          <bdi>{notice}</bdi>
        </SuccessNotice>
      )}
      <ErrorAlert message={error} />
      {panel.kind === "new" ? (
        <div class="panel-frame">
          <NewRoleForm user={user} onCreated={(name) => done(`The role ${name} is created.`)} />
          <button type="button" class="secondary" onClick={() => setPanel({ kind: "none" })}>
            Cancel
          </button>
        </div>
      ) : (
        <p>
          <button type="button" onClick={() => setPanel({ kind: "new" })}>
            New role
          </button>
        </p>
      )}
      {panel.kind === "edit" && (
        <EditRoleForm
          key={panel.role.id}
          user={user}
          role={panel.role}
          onSaved={(name) => done(`The role ${name} is saved.`)}
          onCancel={() => setPanel({ kind: "none" })}
        />
      )}
      <section aria-labelledby="role-list-heading" aria-busy={loading.state === "loading"}>
        <h2 id="role-list-heading">Roles</h2>
        <Loaded loading={loading} label="Loading roles…">
          {(roles) => (
            <RoleList
              roles={roles}
              deleting={deleting}
              onEdit={(role) => {
                setNotice(null);
                setPanel({ kind: "edit", role });
              }}
              onDelete={(role) => void remove(role)}
            />
          )}
        </Loaded>
      </section>
    </Layout>
  );
}
