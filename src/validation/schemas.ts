import { type IntegerOptions, Type } from "@sinclair/typebox";

/**
 * A JSON integer and nothing else. Elysia's `t.Integer` also accepts the string "5", which would let
 * a string id slip through response validation and hand services a string where they expect a number.
 */
export const Int = (options?: IntegerOptions) => Type.Integer(options);
