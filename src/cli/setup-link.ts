import { t } from "elysia";
import { newSetupLink } from "../features/setup/service.ts";
import { adminAction, performAdmin } from "./admin-action.ts";
import { type Command, printResult } from "./command.ts";

export interface SetupLinkJson {
  url: string;
  expires_at: string;
}

/** Runs in the server that holds the embedded database, so the link names its APP_URL. */
export const setupLinkAction = adminAction(
  "setup:link",
  t.Null(),
  async (runtime): Promise<SetupLinkJson> => {
    const { url, expiresAt } = await newSetupLink(runtime);
    return { url, expires_at: expiresAt.toISOString() };
  },
);

/** How a setup link is shown to the person at the terminal, by `serve` and by `setup:link`. */
export const setupLinkLines = (link: SetupLinkJson) => [
  `Open this link to create the first admin (it works until ${link.expires_at}, and only until one exists):`,
  `  ${link.url}`,
];

export const setupLinkCommand: Command = {
  name: "setup:link",
  summary: "make a new link to create the first admin (while no user exists)",
  usage: "depot setup:link [--json]",
  details:
    "For an operator who missed the link `depot serve` printed, or whose hour passed: a new code,\n" +
    "valid for an hour; the link printed before stops working. Refused once any user exists.",
  options: { json: { type: "boolean" } },
  async run(config, values) {
    const link = await performAdmin(config, setupLinkAction, null);
    printResult(values.json === true, { ...link }, setupLinkLines(link).join("\n"));
    return 0;
  },
};
