import { answers } from "../../http/schemas.ts";

type Success = Parameters<typeof answers>[1];
type Refusal = NonNullable<Parameters<typeof answers>[2]>;

/**
 * An operation of the admin API (products, their options, purchases), spread into a route's options:
 * the `*` grant first (so its 401 comes before a form's 422), filed under Admin whatever the file's tags.
 */
export const adminApi = <R extends Success, S extends Refusal = never>(
  summary: string,
  success: R,
  ...statuses: S[]
) => ({ auth: "*" as const, ...answers({ summary, tags: ["Admin"] }, success, ...statuses) });
