import { ErrorAlert } from "../error-alert.tsx";
import { Field } from "../field.tsx";
import { useForm } from "../form.ts";
import { signIn } from "../session.ts";
import type { User } from "../wire.ts";
import { ForgotPassword } from "./forgot-password.tsx";
import { PageHeading } from "./heading.tsx";

interface Props {
  /** Why the reader is here, e.g. the session check could not reach depot. */
  notice?: string;
  /** Good news to show above the form, e.g. that the password was just set. */
  confirmation?: string;
  onSignedIn(user: User): void;
}

export function SignIn({ notice, confirmation, onSignedIn }: Props) {
  // The 422 and 429 messages are the server's own ("These credentials do not match…", "Too many
  // sign-in attempts. Please try again in N seconds."). The credentials' refusal names `email` but
  // is about both fields, so the message always stands above the form.
  const form = useForm(
    { email: "", password: "" },
    {
      failure: "Signing in failed unexpectedly. Please try again.",
      summaryAlways: true,
      initialError: notice ?? null,
    },
  );

  const submit = async (event: Event) => {
    event.preventDefault();
    const { email, password } = form.values;
    await form.run(async () => onSignedIn(await signIn(email, password)));
  };

  return (
    <main class="page narrow">
      <p class="brand">depot</p>
      <PageHeading>Sign in</PageHeading>
      {confirmation && !form.summary && (
        <p class="notice" role="status">
          {confirmation}
        </p>
      )}
      <ErrorAlert message={form.summary} />
      <form onSubmit={submit}>
        <Field
          id="email"
          label="Email"
          {...form.input("email")}
          invalid={form.refused("email")}
          name="email"
          type="email"
          autocomplete="username"
          required
        />
        <Field
          id="password"
          label="Password"
          {...form.input("password")}
          name="password"
          type="password"
          autocomplete="current-password"
          required
        />
        <button type="submit" disabled={form.busy}>
          {form.busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
      <ForgotPassword email={form.values.email} />
    </main>
  );
}
