import type { TSchema } from "@sinclair/typebox";
import { Elysia } from "elysia";
import type { AppContext } from "../context.ts";
import { type Form, validateForm } from "../validation/form.ts";
import { ValidationJson } from "./schemas.ts";

/**
 * A route's body checked as a whole, database rules included, before the handler: `...input(Form)`
 * in the route's options gives Elysia the schema (the handler's type, the document) and this macro
 * the form. Its `transform` runs after the guard's (options are read in order: put `auth` first),
 * so an anonymous caller still gets 401 rather than a 422 about a body it may not send.
 */
export const forms = (ctx: AppContext) =>
  new Elysia().macro({
    validates: (form: Form) => ({
      response: { 422: ValidationJson },
      async transform({ body }) {
        await validateForm(ctx, form, body);
      },
    }),
  });

export const input = <S extends TSchema>(form: Form<S>) => ({ body: form.schema, validates: form as Form });
