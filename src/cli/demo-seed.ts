import { t } from "elysia";
import { type DemoSeed, type DemoUser, seedDemo } from "../features/demo/seed.ts";
import { adminAction, performAdmin } from "./admin-action.ts";
import { type Command, printResult } from "./command.ts";

export const demoSeedAction = adminAction("demo:seed", t.Null(), (runtime) => seedDemo(runtime));

export const demoSeedCommand: Command = {
  name: "demo:seed",
  summary: "seed demo users, products, purchases, tokens and API keys",
  usage: "depot demo:seed [--json]",
  options: { json: { type: "boolean" } },
  async run(config, values) {
    const demo = await performAdmin(config, demoSeedAction, null);
    printResult(values.json === true, demo, describe(demo, config.appUrl));
    return 0;
  },
};

/**
 * The readable form: first where to sign in to the dashboard and as whom, then the admin's token,
 * because those are what a newcomer needs next.
 */
function describe(demo: DemoSeed, appUrl: string): string {
  const { admin, vendors, customers, support } = demo.users;
  const person = (label: string, user: DemoUser) =>
    `  ${label.padEnd(9)} ${String(user.id).padStart(3)}  ${user.email.padEnd(26)} ${user.password}  ${user.token}`;
  const key = (scope: string, value: string) => `  ${scope.padEnd(30)} ${value}`;
  return [
    `Dashboard: ${appUrl}/ (sign in as ${admin.email}, password ${admin.password})`,
    `Admin token: ${admin.token}`,
    "",
    "Users (id, e-mail, dashboard password, token; passwords and tokens are shown only once):",
    person("admin", admin),
    ...vendors.map((user) => person("vendor", user)),
    ...customers.map((user) => person("customer", user)),
    person(support.role, support),
    "",
    "Products:",
    ...demo.products.map(
      (p) =>
        `  ${String(p.id).padStart(3)}  ${p.slug}${p.hidden ? " (hidden)" : ""}: ` +
        p.options.map((o) => `${o.name} ${o.price.toFixed(2)} (option ${o.id})`).join(", "),
    ),
    "",
    `Purchases: ${demo.purchases.map((p) => `${p.id} (user ${p.user_id}, ${p.formatted_price})`).join(", ")}`,
    "",
    "License keys (owner, product):",
    ...demo.licenses.map((l) => `  ${l.key}  user ${l.user_id}, product ${l.product_id}`),
    "",
    "License API keys (x-api-key, shown only once):",
    key("all licenses", demo.api_keys.all.key),
    key(`licenses created by user ${demo.api_keys.vendor.creator_id}`, demo.api_keys.vendor.key),
  ].join("\n");
}
