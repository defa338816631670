import { t } from "elysia";

export const SetupStateJson = t.Object({
  setup_required: t.Literal(true, { description: "no user exists yet: the first admin is to be created" }),
});
