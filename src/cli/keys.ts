import type { SigningKeyRow } from "../db/schema/index.ts";
import { dropsAt, publishedKeys, rotateSigningKey } from "../features/signing/keys.ts";
import type { Runtime } from "../runtime.ts";
import { type Command, printResult, withRuntime } from "./command.ts";

const keyJson = (runtime: Runtime, key: SigningKeyRow) => ({
  kid: key.kid,
  status: key.retiredAt === null ? "active" : "retired",
  created_at: key.createdAt.toISOString(),
  retired_at: key.retiredAt?.toISOString() ?? null,
  published_until: dropsAt(runtime, key)?.toISOString() ?? null,
});

export const keysRotateCommand: Command = {
  name: "keys:rotate",
  summary: "make a new signing key active; the old one stays published for the grace period",
  usage: "depot keys:rotate [--json]",
  details:
    "Retired keys stay in the JWKS for SIGNING_KEY_GRACE_DAYS (default 30), then are dropped. Running\n" +
    "instances sign with the new key within SIGNING_KEY_REFRESH_SECONDS (default 60). Needs only the\n" +
    "current APP_KEY: after a lost APP_KEY, this issues a key the new one can open.",
  options: { json: { type: "boolean" } },
  async run(config, values) {
    const result = await withRuntime(config, async (runtime) => {
      const { active, retired, dropped } = await rotateSigningKey(runtime);
      return {
        active: keyJson(runtime, active),
        retired: retired ? keyJson(runtime, retired) : null,
        dropped,
      };
    });
    const lines = [`Signing key ${result.active.kid} is active.`];
    if (result.retired) {
      lines.push(
        `Retired ${result.retired.kid}: still published until ${result.retired.published_until}, so what it signed keeps verifying.`,
      );
    }
    if (result.dropped.length > 0) lines.push(`Dropped (grace period over): ${result.dropped.join(", ")}.`);
    printResult(values.json === true, result, lines.join("\n"));
    return 0;
  },
};

export const keysListCommand: Command = {
  name: "keys:list",
  summary: "list the published signing keys (the JWKS), active first",
  usage: "depot keys:list [--json]",
  options: { json: { type: "boolean" } },
  async run(config, values) {
    const keys = await withRuntime(config, async (runtime) =>
      (await publishedKeys(runtime)).map((key) => keyJson(runtime, key)),
    );
    const lines = keys.map(
      (key) =>
        `${key.kid}  ${key.status.padEnd(7)}  created ${key.created_at}` +
        (key.published_until ? `  published until ${key.published_until}` : ""),
    );
    printResult(
      values.json === true,
      { keys },
      lines.join("\n") || "No signing keys yet: `depot serve` creates the first.",
    );
    return 0;
  },
};
