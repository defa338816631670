import { forBenefit, type Version, versionsOf } from "../cli-client/versions.ts";
import { type Command, optionalId, printResult, requireId } from "./command.ts";
import { CONNECTION_OPTIONS, CONNECTION_USAGE, tokenClient } from "./connection.ts";

export const versionsCommand: Command = {
  name: "versions",
  summary: "list a product's versions on a depot server, newest first",
  usage: `depot versions --product ID [--benefit ID] [--json] ${CONNECTION_USAGE}`,
  details: [
    'Every page of the list, newest first: a table, or with --json {"versions":[…]} (the API\'s version objects).',
    "The table shows each version's channel, status (draft, published, yanked; critical), rollout and when",
    "it was released (first published; - for a draft).",
    "--benefit keeps only that benefit's versions (without it: the whole product's and every benefit's).",
    "The server is --server or DEPOT_URL, the token --token or DEPOT_TOKEN (docs/reference/cli.md, Client commands).",
  ].join("\n"),
  client: true,
  options: {
    product: { type: "string" },
    benefit: { type: "string" },
    json: { type: "boolean" },
    ...CONNECTION_OPTIONS,
  },
  async run(_config, values) {
    const productId = requireId(values, "product");
    const benefitId = optionalId(values, "benefit");
    const client = tokenClient(values, process.env);
    const versions: Version[] = [];
    for await (const version of versionsOf(client, productId)) {
      if (benefitId === null || forBenefit(version, benefitId)) versions.push(version);
    }
    printResult(values.json === true, { versions }, table(versions));
    return 0;
  },
};

/**
 * One line per version under a header, columns padded to their widest cell. A field the server left
 * out (not a depot, or an older one) shows as "-" rather than stopping the list.
 */
function table(versions: Version[]): string {
  if (versions.length === 0) return "No versions.";
  const rows = [
    ["ID", "VERSION", "BENEFIT", "CHANNEL", "STATUS", "ROLLOUT", "FILE", "SIZE", "RELEASED"],
    ...versions.map((v): (string | undefined)[] => [
      String(v.id),
      v.version_number,
      v.benefit_name ?? "-",
      v.channel,
      v.status + (v.critical ? " critical" : ""),
      `${v.rollout_percentage}%`,
      v.file_name,
      size(v.file_size),
      // When holders were first offered it; a draft has not been.
      v.published_at?.replace(/\.\d+Z$/, "Z") ?? "-",
    ]),
  ];
  const cells = rows.map((row) => row.map((cell) => cell ?? "-"));
  const widths =
    cells[0]?.map((_, column) => Math.max(...cells.map((row) => row[column]?.length ?? 0))) ?? [];
  return cells
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(1)} KiB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
  return `${(bytes / 1024 ** 3).toFixed(1)} GiB`;
}
