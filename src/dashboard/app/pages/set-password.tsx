import { useEffect, useState } from "preact/hooks";
import { ApiError, messageOf } from "../api.ts";
import { Field } from "../field.tsx";
import { type LinkInfo, readPasswordLink, setPasswordWithLink } from "../password-link.ts";
import { PageHeading } from "./heading.tsx";

export const SET_PASSWORD_PATH = "/set-password";
export const PASSWORD_SET_NOTICE = "Your password is set. Sign in.";

interface Props {
  /** The password is set: the app goes on to the sign-in page with PASSWORD_SET_NOTICE. */
  onPasswordSet(): void;
}

type Link =
  | { state: "checking" }
  | { state: "valid"; info: LinkInfo }
  | { state: "refused"; message: string };

/** When the link stops working, in the reader's own time zone. */
const until = (iso: string) =>
  new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });

/** The page a set-password link opens: no session needed, the link's token is the credential. */
export function SetPassword({ onPasswordSet }: Props) {
  const token = new URLSearchParams(location.search).get("token") ?? "";
  const [link, setLink] = useState<Link>({ state: "checking" });
  const [password, setPassword] = useState("");
  const [confirmation, setConfirmation] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [fields, setFields] = useState<Record<string, string[]>>({});

  useEffect(() => {
    readPasswordLink(token).then(
      (info) => setLink({ state: "valid", info }),
      (failure) =>
        setLink({ state: "refused", message: messageOf(failure, "This link could not be checked.") }),
    );
  }, [token]);

  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    // Checked here, before sending: the server only ever sees one copy of the password.
    if (password !== confirmation) {
      setFields({ confirmation: ["The two passwords do not match."] });
      return;
    }
    setFields({});
    setBusy(true);
    try {
      await setPasswordWithLink(token, password);
      onPasswordSet();
    } catch (failure) {
      const fieldErrors = failure instanceof ApiError ? failure.fields : {};
      // A token error has no field on this page: it is the page's message.
      if (fieldErrors.token) setError(fieldErrors.token.join(" "));
      else if (!fieldErrors.password)
        setError(messageOf(failure, "Setting the password failed. Please try again."));
      setFields(fieldErrors);
      setBusy(false);
    }
  };

  const passwordError = fields.password?.join(" ") ?? null;
  const confirmationError = fields.confirmation?.join(" ") ?? null;

  return (
    <main class="page narrow">
      <p class="brand">depot</p>
      <PageHeading>Set your password</PageHeading>
      {link.state === "checking" && <p aria-live="polite">Checking the link…</p>}
      {link.state === "refused" && (
        <>
          <p class="error" role="alert">
            {link.message}
          </p>
          <p>
            Ask an administrator for a new link, or <a href="/sign-in">sign in</a>.
          </p>
        </>
      )}
      {link.state === "valid" && (
        <>
          <p>
            Choose a password for <strong>{link.info.email}</strong>. This link works once, until{" "}
            {until(link.info.expires_at)}.
          </p>
          {error && (
            <p class="error" role="alert">
              {error}
            </p>
          )}
          <form onSubmit={submit}>
            {/* The account's e-mail, for password managers to save the new password under. */}
            <input
              type="email"
              name="email"
              autocomplete="username"
              value={link.info.email}
              hidden
              readOnly
            />
            <Field
              id="new-password"
              label="New password"
              error={passwordError}
              hint="8 to 1024 characters."
              name="password"
              type="password"
              autocomplete="new-password"
              required
              value={password}
              onInput={(event) => setPassword(event.currentTarget.value)}
            />
            <Field
              id="confirm-password"
              label="Confirm password"
              error={confirmationError}
              alert
              name="confirmation"
              type="password"
              autocomplete="new-password"
              required
              value={confirmation}
              onInput={(event) => setConfirmation(event.currentTarget.value)}
            />
            <button type="submit" disabled={busy}>
              {busy ? "Setting password…" : "Set password"}
            </button>
          </form>
        </>
      )}
    </main>
  );
}
