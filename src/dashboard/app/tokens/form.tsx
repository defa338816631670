// Create a token: a name and the abilities to give it; a 422 shows beside the field it is about.
import { useState } from "preact/hooks";
import type { Permission } from "../../../features/auth/permissions.ts";
import { Field } from "../field.tsx";
import { messagesFor, useSubmission } from "../submission.ts";
import type { NewToken, User } from "../wire.ts";
import { grantableAbilities } from "./abilities.ts";
import { createToken } from "./api.ts";

export function NewTokenForm({ user, onCreated }: { user: User; onCreated: (token: NewToken) => void }) {
  const abilities = grantableAbilities(user);
  const [name, setName] = useState("");
  const [chosen, setChosen] = useState<Permission[]>([]);
  const { busy, error, fields, run } = useSubmission("Creating the token failed.");

  const submit = async (event: Event) => {
    event.preventDefault();
    const created = await run(async () =>
      onCreated(await createToken({ name: name.trim(), abilities: chosen })),
    );
    if (created) {
      setName("");
      setChosen([]);
    }
  };

  const toggle = (ability: Permission, on: boolean) =>
    setChosen((current) => (on ? [...current, ability] : current.filter((a) => a !== ability)));

  const nameError = messagesFor(fields, "name");
  const abilitiesError = messagesFor(fields, "abilities");
  // A 422 about a field is shown beside it; only anything else goes in the alert above the form.
  const generalError = error && !nameError && !abilitiesError ? error : null;

  return (
    <form onSubmit={submit} aria-labelledby="new-token-heading" class="panel" noValidate>
      <h2 id="new-token-heading">New token</h2>
      {generalError && (
        <p class="error" role="alert">
          {generalError}
        </p>
      )}
      <Field
        id="token-name"
        label="Name"
        error={nameError}
        alert
        name="name"
        required
        maxLength={255}
        autocomplete="off"
        placeholder="e.g. GitHub Actions publish"
        value={name}
        onInput={(event) => setName(event.currentTarget.value)}
      />
      <fieldset aria-describedby={abilitiesError ? "token-abilities-error" : "token-abilities-hint"}>
        <legend>Abilities</legend>
        {abilities.length === 0 ? (
          <p id="token-abilities-hint" class="hint">
            Your role has no permissions to give; the token can read what any signed-in user can (your
            purchases, notifications and tokens).
          </p>
        ) : (
          <p id="token-abilities-hint" class="hint">
            Give it only what it needs. None checked: it can read only what any signed-in user can.
          </p>
        )}
        {abilities.map((ability) => (
          <div class="check" key={ability.name}>
            <input
              type="checkbox"
              id={`ability-${ability.name}`}
              name="abilities"
              value={ability.name}
              checked={chosen.includes(ability.name)}
              onChange={(event) => toggle(ability.name, event.currentTarget.checked)}
            />
            <label for={`ability-${ability.name}`}>
              <code>{ability.name}</code> <span class="hint">{ability.description}</span>
            </label>
          </div>
        ))}
        {abilitiesError && (
          <p id="token-abilities-error" class="field-error" role="alert">
            {abilitiesError}
          </p>
        )}
      </fieldset>
      <button type="submit" disabled={busy}>
        {busy ? "Creating…" : "Create token"}
      </button>
    </form>
  );
}
