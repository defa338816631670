// A set-password link, shown once: depot keeps nothing to show it again (a new one can be made).
import { CopyField } from "../copy-field.tsx";
import { formatDate } from "../dates.ts";
import type { PasswordLink } from "../wire.ts";

interface Props {
  /** Unique on the page: the copy field's id. */
  id: string;
  email: string;
  link: PasswordLink;
}

export function ShownLink({ id, email, link }: Props) {
  return (
    <div class="shown-link">
      <CopyField
        id={id}
        label={
          <>
            Set-password link for <bdi>{email}</bdi>
          </>
        }
        value={link.url}
      />
      <p class="hint">
        Send this link to <bdi>{email}</bdi>; it expires in 72 hours (
        <time dateTime={link.expires_at}>{formatDate(link.expires_at)}</time>) and works once.{" "}
        {link.emailed
          ? "depot has e-mailed it to them as well."
          : "depot has not e-mailed it (no SMTP server is configured)."}
      </p>
    </div>
  );
}
