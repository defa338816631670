// A new password and its confirmation, as setting a password from a link and changing it both ask.
import { Field } from "./field.tsx";
import type { BoundInput } from "./form.ts";

interface Props {
  password: BoundInput;
  confirmation: BoundInput;
  /** The confirmation's name in the form, as the API calls it. */
  confirmationName: string;
}

export function NewPasswordFields({ password, confirmation, confirmationName }: Props) {
  return (
    <>
      <Field
        id="new-password"
        label="New password"
        {...password}
        alert
        hint="8 to 1024 characters."
        name="password"
        type="password"
        autocomplete="new-password"
        required
      />
      <Field
        id="confirm-password"
        label="Confirm password"
        {...confirmation}
        alert
        name={confirmationName}
        type="password"
        autocomplete="new-password"
        required
      />
    </>
  );
}
