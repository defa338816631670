import { Refused } from "../cli-client/failures.ts";
import { changeRelease } from "../cli-client/releases.ts";
import { type Version, versionNamed } from "../cli-client/versions.ts";
import {
  type Command,
  optionalId,
  printResult,
  requireId,
  requirePositional,
  requireString,
  UsageError,
} from "./command.ts";
import { CONNECTION_OPTIONS, CONNECTION_USAGE, tokenClient } from "./connection.ts";
import { percentageOf, stepTimeOf } from "./release-options.ts";

// The release state of a published version from the command line: its staged rollout, a yank and
// its undoing. Each is one PATCH of the versions API (docs/reference/http-api.md), found by name as
// `depot release` finds it, and the same command again changes nothing.

const VERSION_OPTIONS = {
  product: { type: "string" },
  benefit: { type: "string" },
  json: { type: "boolean" },
  ...CONNECTION_OPTIONS,
} as const;

const EXIT_CODES = "Exit codes: 0 done or already so, 1 refused by the server, 2 usage, 3 network gave up.";

/** The client and the version the command line names (`--product`, `--benefit`, VERSION). */
async function namedVersion(values: Record<string, unknown>, name: string) {
  const productId = requireId(values, "product");
  const benefitId = optionalId(values, "benefit");
  const client = tokenClient(values as Parameters<typeof tokenClient>[0], process.env);
  return { client, productId, version: await versionNamed(client, productId, benefitId, name) };
}

const described = (version: Version) =>
  `version ${version.version_number} (id ${version.id}, ${version.status}, rollout ${version.rollout_percentage}%)`;

export const rolloutCommand: Command = {
  name: "rollout",
  summary: "set the share of machines a version is offered to (staged rollout)",
  usage: `depot rollout VERSION N --product ID [--benefit ID] [--at TIME] ${CONNECTION_USAGE} [--json]`,
  details: [
    "N is a percentage from 0 to 100: update feeds offer VERSION to that share of machines (each machine",
    "always falls on the same side), 100 to all, 0 halts the rollout. Without --at it applies now and",
    "replaces any schedule; with --at TIME (ISO 8601 with its zone, 2026-12-01T09:00Z) it is added to the",
    "version's schedule as a step that raises the rollout to N from then on (a step at the same time is",
    "replaced).",
    EXIT_CODES,
  ].join("\n"),
  client: true,
  positional: "args",
  manyPositionals: true,
  options: { ...VERSION_OPTIONS, at: { type: "string" } },
  async run(_config, values) {
    const [name, typed, ...more] = (values.args as string[] | undefined) ?? [];
    if (!name) throw new UsageError("VERSION is required");
    if (typed === undefined) throw new UsageError("N (the percentage, 0 to 100) is required");
    if (more.length > 0) throw new UsageError(`unexpected argument "${more[0]}"`);
    const percentage = percentageOf(typed, "N");
    const at = values.at === undefined ? null : stepTimeOf(values.at);
    const { client, productId, version } = await namedVersion(values, name);
    const steps = (version.rollout_schedule ?? []).filter((step) => new Date(step.at).toISOString() !== at);
    const changed = await changeRelease(
      client,
      productId,
      version.id,
      at === null ? { rollout_percentage: percentage } : { rollout_schedule: [...steps, { at, percentage }] },
    );
    printResult(
      values.json === true,
      { status: at === null ? "rolled-out" : "scheduled", version: changed },
      at === null
        ? `${described(changed)}: offered to ${percentage}% of machines`
        : `${described(changed)}: ${percentage}% from ${at}`,
    );
    return 0;
  },
};

export const yankCommand: Command = {
  name: "yank",
  summary: "withdraw a released version: feeds stop offering it, holders who got it are told why",
  usage: `depot yank VERSION --reason TEXT --product ID [--benefit ID] ${CONNECTION_USAGE} [--json]`,
  details: [
    "Yanks VERSION (PATCH status yanked): update feeds and `latest` stop offering it, and holders who",
    "downloaded it are e-mailed the --reason. A yanked version yanked again keeps its state and takes the",
    "new reason. A draft cannot be yanked (it was never released). `depot unyank` undoes it.",
    EXIT_CODES,
  ].join("\n"),
  client: true,
  positional: "version",
  options: { ...VERSION_OPTIONS, reason: { type: "string" } },
  async run(_config, values) {
    const name = requirePositional(values, "version", "VERSION");
    const reason = requireString(values, "reason");
    const { client, productId, version } = await namedVersion(values, name);
    const already = version.status === "yanked";
    const changed = await changeRelease(client, productId, version.id, {
      status: "yanked",
      yank_reason: reason,
    });
    printResult(
      values.json === true,
      { status: already ? "already-yanked" : "yanked", version: changed },
      `${already ? "already yanked:" : "yanked"} ${described(changed)}: ${changed.yank_reason}`,
    );
    return 0;
  },
};

export const unyankCommand: Command = {
  name: "unyank",
  summary: "undo a yank: the version is offered again",
  usage: `depot unyank VERSION --product ID [--benefit ID] ${CONNECTION_USAGE} [--json]`,
  details: [
    "Publishes a yanked VERSION again (PATCH status published), keeping the date it was first released;",
    "holders are not told again. A version that is not yanked is success; a draft is `depot release`'s.",
    EXIT_CODES,
  ].join("\n"),
  client: true,
  positional: "version",
  options: VERSION_OPTIONS,
  async run(_config, values) {
    const name = requirePositional(values, "version", "VERSION");
    const { client, productId, version } = await namedVersion(values, name);
    if (version.status === "draft") {
      throw new Refused(`version ${name} is a draft, not yanked: release it with depot release`);
    }
    const yanked = version.status === "yanked";
    const changed = yanked
      ? await changeRelease(client, productId, version.id, { status: "published" })
      : version;
    printResult(
      values.json === true,
      { status: yanked ? "unyanked" : "not-yanked", version: changed },
      `${yanked ? "unyanked" : "not yanked:"} ${described(changed)}`,
    );
    return 0;
  },
};
