import { t } from "elysia";
import type { SigningKeyRow } from "../db/schema/index.ts";
import {
  dropsAt,
  keyStatus,
  prepareNextKey,
  publishedKeys,
  rotateSigningKey,
} from "../features/signing/keys.ts";
import type { Runtime } from "../runtime.ts";
import { adminAction, performAdmin } from "./admin-action.ts";
import { type Command, printResult } from "./command.ts";

const keyJson = (runtime: Runtime, key: SigningKeyRow) => ({
  kid: key.kid,
  status: keyStatus(key),
  created_at: key.createdAt.toISOString(),
  activated_at: key.activatedAt?.toISOString() ?? null,
  retired_at: key.retiredAt?.toISOString() ?? null,
  published_until: dropsAt(runtime, key)?.toISOString() ?? null,
});

export const prepareKeyAction = adminAction("keys:prepare", t.Null(), async (runtime) => {
  const prepared = await prepareNextKey(runtime);
  return { next: keyJson(runtime, prepared.next), created: prepared.created };
});

export const rotateKeysAction = adminAction("keys:rotate", t.Null(), async (runtime) => {
  const { active, retired, prepared, dropped } = await rotateSigningKey(runtime);
  return {
    active: keyJson(runtime, active),
    retired: retired ? keyJson(runtime, retired) : null,
    prepared,
    dropped,
  };
});

export const listKeysAction = adminAction("keys:list", t.Null(), async (runtime) =>
  (await publishedKeys(runtime)).map((key) => keyJson(runtime, key)),
);

export const keysRotateCommand: Command = {
  name: "keys:rotate",
  summary: "make the next signing key active; the old one stays published for the grace period",
  usage: "depot keys:rotate [--prepare] [--json]",
  details:
    "--prepare only publishes the next key (in the JWKS, signing nothing yet), so software that pins\n" +
    "depot's keys can ship it first; the next keys:rotate activates it (without --prepare first, a new\n" +
    "key is made and activated at once). Retired keys stay in the JWKS for SIGNING_KEY_GRACE_DAYS\n" +
    "(default 30), then are dropped. Running instances sign with the new key within\n" +
    "SIGNING_KEY_REFRESH_SECONDS (default 60). Needs only the current APP_KEY: after a lost APP_KEY,\n" +
    "this issues a key the new one can open.",
  options: { prepare: { type: "boolean" }, json: { type: "boolean" } },
  async run(config, values) {
    if (values.prepare === true) {
      const { next, created } = await performAdmin(config, prepareKeyAction, null);
      const human = created
        ? `Signing key ${next.kid} is published as the next key; \`depot keys:rotate\` activates it.`
        : `Signing key ${next.kid} was already the next key; \`depot keys:rotate\` activates it.`;
      printResult(values.json === true, { next, created }, human);
      return 0;
    }
    const result = await performAdmin(config, rotateKeysAction, null);
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
  summary: "list the published signing keys (the JWKS): active, next, retired",
  usage: "depot keys:list [--json]",
  options: { json: { type: "boolean" } },
  async run(config, values) {
    const keys = await performAdmin(config, listKeysAction, null);
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
