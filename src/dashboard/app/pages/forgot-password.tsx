import { useState } from "preact/hooks";
import { api, messageOf } from "../api.ts";

/**
 * "Forgot password?" under the sign-in form: asks depot to e-mail a set-password link to the address
 * typed above. The answer is the same whether or not the address has an account; without SMTP_URL
 * depot sends no e-mail, and the reader is sent to an admin instead.
 */
export function ForgotPassword({ email }: { email: string }) {
  const [note, setNote] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const ask = async () => {
    if (email.trim() === "") {
      setNote("Type your e-mail address above first.");
      return;
    }
    setBusy(true);
    try {
      const { data } = await api<{ data: { by_email: boolean } }>("POST", "/api/auth/forgot-password", {
        email: email.trim(),
      });
      setNote(
        data.by_email
          ? `If ${email.trim()} has an account, a link to set a new password is on its way. It works once, for 72 hours.`
          : "This depot sends no e-mail. Ask an admin for a set-password link (Users, Password link).",
      );
    } catch (failure) {
      setNote(messageOf(failure, "Asking for a link failed unexpectedly. Please try again."));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="forgot-password">
      <button type="button" class="secondary" onClick={ask} disabled={busy}>
        {busy ? "Asking…" : "Forgot password?"}
      </button>
      {note && (
        <p class="notice" role="status">
          {note}
        </p>
      )}
    </section>
  );
}
