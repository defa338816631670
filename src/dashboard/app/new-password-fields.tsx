// A new password and its confirmation, as setting a password from a link and changing it both ask.
import { Field } from "./field.tsx";

interface Props {
  password: string;
  confirmation: string;
  onPassword: (value: string) => void;
  onConfirmation: (value: string) => void;
  passwordError: string | null;
  confirmationError: string | null;
  /** The confirmation's name in the form, as the API calls it. */
  confirmationName: string;
}

export function NewPasswordFields(props: Props) {
  return (
    <>
      <Field
        id="new-password"
        label="New password"
        error={props.passwordError}
        alert
        hint="8 to 1024 characters."
        name="password"
        type="password"
        autocomplete="new-password"
        required
        value={props.password}
        onInput={(event) => props.onPassword(event.currentTarget.value)}
      />
      <Field
        id="confirm-password"
        label="Confirm password"
        error={props.confirmationError}
        alert
        name={props.confirmationName}
        type="password"
        autocomplete="new-password"
        required
        value={props.confirmation}
        onInput={(event) => props.onConfirmation(event.currentTarget.value)}
      />
    </>
  );
}
