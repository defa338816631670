import { ErrorAlert } from "../error-alert.tsx";
import { Field } from "../field.tsx";
import { useForm } from "../form.ts";
import { createFirstAdmin } from "../setup.ts";
import type { User } from "../wire.ts";
import { PageHeading } from "./heading.tsx";

interface Props {
  onSignedIn(user: User): void;
}

/**
 * Shown at any dashboard path while no user exists: the setup code (filled in from the printed
 * link), then the first admin's name, e-mail and password. depot signs the admin in at once.
 */
export function Setup({ onSignedIn }: Props) {
  const code = new URLSearchParams(location.search).get("code") ?? "";
  const form = useForm(
    { code, name: "", email: "", password: "" },
    { failure: "Creating the admin failed unexpectedly. Please try again." },
  );

  const submit = async (event: Event) => {
    event.preventDefault();
    await form.run(async () => onSignedIn(await createFirstAdmin(form.values)));
  };

  return (
    <main class="page narrow">
      <p class="brand">depot</p>
      <PageHeading>Create the first admin</PageHeading>
      <p>
        depot has no users yet. The setup code is in the link <code>depot serve</code> printed, and in its
        log.
      </p>
      <ErrorAlert message={form.summary} />
      <form onSubmit={submit}>
        <Field
          id="setup-code"
          label="Setup code"
          {...form.input("code")}
          name="code"
          autocomplete="off"
          spellcheck={false}
          required
        />
        <Field
          id="setup-name"
          label="Name"
          {...form.input("name")}
          name="name"
          autocomplete="name"
          required
        />
        <Field
          id="setup-email"
          label="Email"
          {...form.input("email")}
          name="email"
          type="email"
          autocomplete="username"
          required
        />
        <Field
          id="setup-password"
          label="Password"
          {...form.input("password")}
          hint="8 to 1024 characters."
          name="password"
          type="password"
          autocomplete="new-password"
          required
        />
        <button type="submit" disabled={form.busy}>
          {form.busy ? "Creating…" : "Create admin and sign in"}
        </button>
      </form>
    </main>
  );
}
