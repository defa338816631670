import { useState } from "preact/hooks";
import { Field } from "../field.tsx";
import { signIn } from "../session.ts";
import { useSubmission } from "../submission.ts";
import type { User } from "../wire.ts";
import { PageHeading } from "./heading.tsx";

interface Props {
  /** Why the reader is here, e.g. the session check could not reach depot. */
  notice?: string;
  /** Good news to show above the form, e.g. that the password was just set. */
  confirmation?: string;
  onSignedIn(user: User): void;
}

export function SignIn({ notice, confirmation, onSignedIn }: Props) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  // The 422 and 429 messages are the server's own ("These credentials do not match…", "Too many
  // sign-in attempts. Please try again in N seconds.").
  const { busy, error, fields, run } = useSubmission(
    "Signing in failed unexpectedly. Please try again.",
    notice ?? null,
  );

  const submit = async (event: Event) => {
    event.preventDefault();
    await run(async () => onSignedIn(await signIn(email, password)));
  };

  /** A field's errors, except one that only repeats the message shown above the form. */
  const fieldError = (name: string) => {
    const messages = (fields[name] ?? []).filter((message) => message !== error);
    return messages.length > 0 ? messages.join(" ") : null;
  };
  const emailError = fieldError("email");
  const passwordError = fieldError("password");

  return (
    <main class="page narrow">
      <p class="brand">depot</p>
      <PageHeading>Sign in</PageHeading>
      {confirmation && !error && (
        <p class="notice" role="status">
          {confirmation}
        </p>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <form onSubmit={submit}>
        <Field
          id="email"
          label="Email"
          error={emailError}
          invalid={Boolean(fields.email)}
          name="email"
          type="email"
          autocomplete="username"
          required
          value={email}
          onInput={(event) => setEmail(event.currentTarget.value)}
        />
        <Field
          id="password"
          label="Password"
          error={passwordError}
          name="password"
          type="password"
          autocomplete="current-password"
          required
          value={password}
          onInput={(event) => setPassword(event.currentTarget.value)}
        />
        <button type="submit" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
    </main>
  );
}
