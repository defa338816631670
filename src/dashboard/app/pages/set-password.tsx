import { useEffect, useState } from "preact/hooks";
import { ApiError, messageOf } from "../api.ts";
import { ErrorAlert } from "../error-alert.tsx";
import { useForm } from "../form.ts";
import { NewPasswordFields } from "../new-password-fields.tsx";
import { readPasswordLink, setPasswordWithLink } from "../password-link.ts";
import type { PasswordLinkInfo } from "../wire.ts";
import { PageHeading } from "./heading.tsx";

export const SET_PASSWORD_PATH = "/set-password";
export const PASSWORD_SET_NOTICE = "Your password is set. Sign in.";
const MISMATCH = "The two passwords do not match.";

interface Props {
  /** The password is set: the app goes on to the sign-in page with PASSWORD_SET_NOTICE. */
  onPasswordSet(): void;
}

type Link =
  | { state: "checking" }
  | { state: "valid"; info: PasswordLinkInfo }
  | { state: "refused"; message: string };

/** When the link stops working, in the reader's own time zone. */
const until = (iso: string) =>
  new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });

/** The page a set-password link opens: no session needed, the link's token is the credential. */
export function SetPassword({ onPasswordSet }: Props) {
  const token = new URLSearchParams(location.search).get("token") ?? "";
  const [link, setLink] = useState<Link>({ state: "checking" });
  const form = useForm(
    { password: "", confirmation: "" },
    {
      failure: "Setting the password failed. Please try again.",
    },
  );

  useEffect(() => {
    readPasswordLink(token).then(
      (info) => setLink({ state: "valid", info }),
      (failure) =>
        setLink({ state: "refused", message: messageOf(failure, "This link could not be checked.") }),
    );
  }, [token]);

  const submit = async (event: Event) => {
    event.preventDefault();
    const { password, confirmation } = form.values;
    const set = await form.run(async () => {
      // Checked here, before sending: the server only ever sees one copy of the password.
      if (password !== confirmation) throw new ApiError(422, MISMATCH, { confirmation: [MISMATCH] });
      await setPasswordWithLink(token, password);
    });
    if (set) onPasswordSet();
  };

  // A token error has no field on this page: it is the page's message.
  const pageError = form.errorOf("token") ?? form.summary;

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
            Choose a password for <strong dir="auto">{link.info.email}</strong>. This link works once, until{" "}
            {until(link.info.expires_at)}.
          </p>
          <ErrorAlert message={pageError} />
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
            <NewPasswordFields
              password={form.input("password")}
              confirmation={form.input("confirmation")}
              confirmationName="confirmation"
            />
            <button type="submit" disabled={form.busy}>
              {form.busy ? "Setting password…" : "Set password"}
            </button>
          </form>
        </>
      )}
    </main>
  );
}
