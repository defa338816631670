// Change your password: the current one, then the new one twice. The server checks all three (a
// wrong current password or a mismatch is a 422 beside its field) and ends your other sessions.
import { useState } from "preact/hooks";
import { Field } from "../field.tsx";
import { NewPasswordFields } from "../new-password-fields.tsx";
import { useSubmission } from "../submission.ts";
import type { User } from "../wire.ts";
import { changePassword } from "./api.ts";

export function PasswordForm({ user }: { user: User }) {
  const [current, setCurrent] = useState("");
  const [password, setPassword] = useState("");
  const [confirmation, setConfirmation] = useState("");
  const [changed, setChanged] = useState(false);
  const { busy, error, fields, run } = useSubmission("Changing your password failed.");

  const submit = async (event: Event) => {
    event.preventDefault();
    setChanged(false);
    if (
      await run(() =>
        changePassword({ current_password: current, password, password_confirmation: confirmation }),
      )
    ) {
      setCurrent("");
      setPassword("");
      setConfirmation("");
      setChanged(true);
    }
  };

  const errorOf = (field: string) => fields[field]?.join(" ") ?? null;
  const currentError = errorOf("current_password");
  const passwordError = errorOf("password");
  const confirmationError = errorOf("password_confirmation");
  const anyField = currentError || passwordError || confirmationError;
  return (
    <form onSubmit={submit} class="panel" aria-labelledby="password-heading" noValidate>
      <h2 id="password-heading">Change password</h2>
      <p class="hint">
        Your other browsers are signed out; this one stays. Personal access tokens keep working.
      </p>
      {error && !anyField && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {/* The account's e-mail, for password managers to save the new password under. */}
      <input type="email" name="email" autocomplete="username" value={user.email} hidden readOnly />
      <Field
        id="current-password"
        label="Current password"
        error={currentError}
        alert
        name="current_password"
        type="password"
        autocomplete="current-password"
        required
        value={current}
        onInput={(event) => setCurrent(event.currentTarget.value)}
      />
      <NewPasswordFields
        password={password}
        confirmation={confirmation}
        onPassword={setPassword}
        onConfirmation={setConfirmation}
        passwordError={passwordError}
        confirmationError={confirmationError}
        confirmationName="password_confirmation"
      />
      <p aria-live="polite" class="hint">
        {changed && "Your password is changed. Your other browsers are signed out."}
      </p>
      <button type="submit" disabled={busy}>
        {busy ? "Changing…" : "Change password"}
      </button>
    </form>
  );
}
