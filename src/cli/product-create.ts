import { t } from "elysia";
import { Invalid } from "../errors.ts";
import { toProductJson } from "../features/products/json.ts";
import { CreateProductBody } from "../features/products/schemas.ts";
import { createProduct } from "../features/products/service.ts";
import { findUserByEmail } from "../features/sessions/credentials.ts";
import { EmailAddress } from "../features/users/schemas.ts";
import { assertValid } from "../validation/messages.ts";
import { adminAction, performAdmin } from "./admin-action.ts";
import { type Command, printResult, requireString } from "./command.ts";

/** A product owned by the user with this e-mail (any case); the result is the API's product JSON. */
export const createProductAction = adminAction(
  "product:create",
  t.Object({ name: CreateProductBody.properties.name, owner: EmailAddress }, { additionalProperties: false }),
  async (runtime, input) => {
    const owner = await findUserByEmail(runtime, input.owner);
    if (!owner) throw new Invalid({ owner: [`No user has the email ${input.owner}.`] });
    const body = { name: input.name, user_id: owner.user.id };
    assertValid(CreateProductBody, body);
    const { product, purchases } = await createProduct(runtime, body);
    return toProductJson(product, purchases, runtime.config.appUrl);
  },
);

export const productCreateCommand: Command = {
  name: "product:create",
  summary: "create a product owned by a user (the vendor who publishes its releases)",
  usage: "depot product:create --name N --owner EMAIL [--json]",
  details:
    "The slug is made from the name. --json prints the product as the HTTP API\n" +
    "does (GET /api/products/{id}); the dashboard and PATCH /api/admin/products/{id} change the rest.",
  options: { name: { type: "string" }, owner: { type: "string" }, json: { type: "boolean" } },
  async run(config, values) {
    const input = { name: requireString(values, "name"), owner: requireString(values, "owner") };
    const product = await performAdmin(config, createProductAction, input);
    printResult(
      values.json === true,
      product,
      `Created product ${product.id} "${product.name}" (slug ${product.slug}), owned by <${input.owner}>.`,
    );
    return 0;
  },
};
