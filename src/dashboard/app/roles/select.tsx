// A select of the roles by name: the role a new user gets, or the one an admin gives a user.
import { SelectField } from "../field.tsx";
import type { Role } from "../wire.ts";

interface Props {
  id: string;
  label: string;
  roles: Role[];
  /** The chosen role's name. */
  value: string;
  error: string | null;
  onChange: (role: string) => void;
}

export function RoleSelect({ id, label, roles, value, error, onChange }: Props) {
  return (
    <SelectField
      id={id}
      label={label}
      error={error}
      alert
      value={value}
      onChange={(event) => onChange(event.currentTarget.value)}
    >
      {roles.map((role) => (
        <option key={role.id} value={role.name}>
          {role.name}
        </option>
      ))}
    </SelectField>
  );
}
