import { t } from "elysia";
import { PageQuery } from "../../http/pagination.ts";

/** Laravel's boolean rule: 1 or true, 0 or false; empty (`?unread=`) reads as absent. */
const UnreadFlag = t
  .Transform(
    t.String({
      pattern: "^(|0|1|true|false)$",
      error: "The unread field must be true or false.",
      description: "1: only unread notifications",
    }),
  )
  .Decode((raw) => raw === "1" || raw === "true")
  .Encode((unreadOnly) => (unreadOnly ? "1" : "0"));

export const NotificationQuery = t.Object({ unread: t.Optional(UnreadFlag), ...PageQuery });
