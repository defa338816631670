// Change your password: the current one, then the new one twice. The server checks all three (a
// wrong current password or a mismatch is a 422 beside its field) and ends your other sessions.
import { useState } from "preact/hooks";
import { ErrorAlert } from "../error-alert.tsx";
import { Field } from "../field.tsx";
import { useForm } from "../form.ts";
import { NewPasswordFields } from "../new-password-fields.tsx";
import { SuccessNotice } from "../notice.tsx";
import type { User } from "../wire.ts";
import { changePassword } from "./api.ts";

export function PasswordForm({ user }: { user: User }) {
  const form = useForm(
    { current_password: "", password: "", password_confirmation: "" },
    { failure: "Changing your password failed." },
  );
  const [changed, setChanged] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setChanged(false);
    if (await form.run(() => changePassword(form.values))) {
      form.reset();
      setChanged(true);
    }
  };

  return (
    <form onSubmit={submit} class="panel" aria-labelledby="password-heading" noValidate>
      <h2 id="password-heading">Change password</h2>
      <p class="hint">
        Your other browsers are signed out; this one stays. Personal access tokens keep working.
      </p>
      <ErrorAlert message={form.summary} />
      {/* The account's e-mail, for password managers to save the new password under. */}
      <input type="email" name="email" autocomplete="username" value={user.email} hidden readOnly />
      <Field
        id="current-password"
        label="Current password"
        {...form.input("current_password")}
        alert
        name="current_password"
        type="password"
        autocomplete="current-password"
        required
      />
      <NewPasswordFields
        password={form.input("password")}
        confirmation={form.input("password_confirmation")}
        confirmationName="password_confirmation"
      />
      {changed && (
        <SuccessNotice onDismiss={() => setChanged(false)}>
          Your password is changed. Your other browsers are signed out.
        </SuccessNotice>
      )}
      <button type="submit" disabled={form.busy}>
        {form.busy ? "Changing…" : "Change password"}
      </button>
    </form>
  );
}
