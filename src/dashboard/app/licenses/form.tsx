// A new license for a customer by e-mail, with an optional expiry and address limit; a 422 shows
// beside the field it is about.
import { useState } from "preact/hooks";
import { Field } from "../field.tsx";
import { useSubmission } from "../submission.ts";
import type { License, NewLicense } from "../wire.ts";
import { createLicense } from "./api.ts";

/** The 422's messages for `field`, joined for one line under it. */
const messageFor = (fields: Record<string, string[]>, field: string) => fields[field]?.join(" ") || null;

/**
 * A date picked in the form means "until the end of that day" where the vendor is, so a license
 * set to expire on the 31st still works all through the 31st.
 */
const endOfDay = (date: string) => new Date(`${date}T23:59:59.999`).toISOString();

export function NewLicenseForm({
  productId,
  onCreated,
}: {
  productId: string;
  onCreated: (license: License) => void;
}) {
  const [email, setEmail] = useState("");
  const [expires, setExpires] = useState("");
  const [maxIps, setMaxIps] = useState("");
  const { busy, error, fields, run } = useSubmission("Creating the license failed.");

  const submit = async (event: Event) => {
    event.preventDefault();
    const body: NewLicense = { owner_email: email.trim() };
    // An unreadable date is sent as typed, for the server to name it.
    if (expires) body.expires = Number.isNaN(Date.parse(expires)) ? expires : endOfDay(expires);
    if (maxIps.trim()) body.max_ips = Number(maxIps);
    const created = await run(async () => onCreated(await createLicense(productId, body)));
    if (created) {
      setEmail("");
      setExpires("");
      setMaxIps("");
    }
  };

  const emailError = messageFor(fields, "owner_email");
  const expiresError = messageFor(fields, "expires");
  const maxIpsError = messageFor(fields, "max_ips");
  // A 422 about a field is shown beside it; only anything else goes in the alert above the form.
  const generalError = error && !emailError && !expiresError && !maxIpsError ? error : null;

  return (
    <form onSubmit={submit} aria-labelledby="new-license-heading" class="panel" noValidate>
      <h2 id="new-license-heading">New license</h2>
      {generalError && (
        <p class="error" role="alert">
          {generalError}
        </p>
      )}
      <Field
        id="license-owner"
        label="Owner email"
        error={emailError}
        alert
        type="email"
        name="owner_email"
        required
        autocomplete="off"
        hint="The e-mail of a customer of this product's owner: someone who bought or holds a license of one of their products."
        value={email}
        onInput={(event) => setEmail(event.currentTarget.value)}
      />
      <Field
        id="license-expires"
        label="Expires"
        error={expiresError}
        alert
        type="date"
        name="expires"
        hint="Optional: the license works until the end of this day (your time). Empty: never expires."
        value={expires}
        onInput={(event) => setExpires(event.currentTarget.value)}
      />
      <Field
        id="license-max-ips"
        label="Max IPs"
        error={maxIpsError}
        alert
        type="number"
        inputMode="numeric"
        min={1}
        max={10000}
        name="max_ips"
        hint="Optional: how many addresses may use it at once (empty: depot's default)."
        value={maxIps}
        onInput={(event) => setMaxIps(event.currentTarget.value)}
      />
      <button type="submit" disabled={busy}>
        {busy ? "Creating…" : "Create license"}
      </button>
    </form>
  );
}
