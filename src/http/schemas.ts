import { type IntegerOptions, Type } from "@sinclair/typebox";
import { t } from "elysia";

/**
 * A JSON integer and nothing else. Elysia's `t.Integer` also accepts the string "5", which would let
 * a string id slip through response validation and hand services a string where they expect a number.
 */
export const Int = (options?: IntegerOptions) => Type.Integer(options);

/** `{ message }`: every error body. */
export const MessageJson = t.Object({ message: t.String() });

/** `{ message, errors: { field: [messages] } }`: a 422. */
export const ValidationJson = t.Object({
  message: t.String(),
  errors: t.Record(t.String(), t.Array(t.String())),
});

/** `{ data: T }`, Laravel's resource wrapper. */
export const dataOf = <T extends Parameters<typeof t.Object>[0][string]>(item: T) => t.Object({ data: item });
