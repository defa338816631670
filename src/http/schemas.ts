import { t } from "elysia";

/** `{ message }`: every error body. */
export const MessageJson = t.Object({ message: t.String() });

/** `{ message, errors: { field: [messages] } }`: a 422. */
export const ValidationJson = t.Object({
  message: t.String(),
  errors: t.Record(t.String(), t.Array(t.String())),
});

/** `{ data: T }`, Laravel's resource wrapper. */
export const dataOf = <T extends Parameters<typeof t.Object>[0][string]>(item: T) => t.Object({ data: item });
