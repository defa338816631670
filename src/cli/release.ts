import { Refused } from "../cli-client/failures.ts";
import { changeRelease, type ReleaseChange } from "../cli-client/releases.ts";
import { versionNamed } from "../cli-client/versions.ts";
import { type Command, optionalId, printResult, requireId, requirePositional } from "./command.ts";
import { CONNECTION_OPTIONS, CONNECTION_USAGE, tokenClient } from "./connection.ts";
import { percentageOf } from "./release-options.ts";

export const releaseCommand: Command = {
  name: "release",
  summary: "release a draft version on a depot server: holders see it and are told",
  usage: `depot release VERSION --product ID [--benefit ID] [--rollout N] [--critical] ${CONNECTION_USAGE} [--json]`,
  details: [
    "The last job of a CI matrix: the runners each `depot publish … --draft` their platform's files to",
    "the draft VERSION (its name), then this releases it (PATCH status published). A version already",
    "released is success, so a re-run job does nothing twice; a yanked one is refused (`depot unyank`).",
    "--rollout N (0 to 100) offers it to N% of machines at first (`depot rollout` raises it later);",
    "--critical marks it critical. Both apply to a version already released too.",
    "Exit codes: 0 released or already released, 1 refused (no such version, yanked), 2 usage, 3 network gave up.",
  ].join("\n"),
  client: true,
  positional: "version",
  options: {
    product: { type: "string" },
    benefit: { type: "string" },
    rollout: { type: "string" },
    critical: { type: "boolean" },
    json: { type: "boolean" },
    ...CONNECTION_OPTIONS,
  },
  async run(_config, values) {
    const name = requirePositional(values, "version", "VERSION");
    const productId = requireId(values, "product");
    const benefitId = optionalId(values, "benefit");
    const extra: ReleaseChange = {
      ...(values.rollout === undefined
        ? {}
        : { rollout_percentage: percentageOf(values.rollout, "--rollout") }),
      ...(values.critical === true ? { critical: true } : {}),
    };
    const client = tokenClient(values, process.env);
    const found = await versionNamed(client, productId, benefitId, name);
    if (found.status === "yanked") {
      throw new Refused(
        `version ${name} is yanked${found.yank_reason ? ` (${found.yank_reason})` : ""}: not released again`,
      );
    }
    const released = found.status === "draft";
    const change: ReleaseChange = released ? { status: "published", ...extra } : extra;
    const version =
      Object.keys(change).length > 0 ? await changeRelease(client, productId, found.id, change) : found;
    const files = version.artifacts?.length ?? 1;
    printResult(
      values.json === true,
      { status: released ? "released" : "already-released", version },
      `${released ? "released" : "already released:"} version ${version.version_number} (id ${version.id}, ` +
        `${files} file${files === 1 ? "" : "s"}, channel ${version.channel}, rollout ${version.rollout_percentage}%` +
        `${version.critical ? ", critical" : ""})`,
    );
    return 0;
  },
};
