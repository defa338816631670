import { constants } from "node:fs";
import { access, readFile, stat } from "node:fs/promises";
import { basename } from "node:path";
import { readJson } from "../client/depot-client.ts";
import { Refused } from "../client/failures.ts";
import { DEFAULT_CHUNK_BYTES, FileDigests, type LocalFile, uploadFile } from "../client/tus-upload.ts";
import { findVersionNamed, type Version } from "../client/versions.ts";
import { Progress } from "../progress.ts";
import { type Command, optionalId, printResult, requireId, requireString, UsageError } from "./command.ts";
import { CONNECTION_OPTIONS, CONNECTION_USAGE, tokenClient } from "./connection.ts";

type Values = Record<string, string | boolean | string[] | undefined>;

const FORMATS = ["markdown", "html"];

export const publishCommand: Command = {
  name: "publish",
  summary: "upload a release to a depot server (resumable) and publish it as a version",
  usage:
    "depot publish FILE --product ID [--benefit ID] --version NAME --title T " +
    "(--changelog TEXT | --changelog-file PATH) [--format markdown|html] [--chunk-size BYTES] " +
    `${CONNECTION_USAGE} [--json]`,
  details: [
    "The file goes up through the server's resumable upload endpoint in requests of --chunk-size bytes",
    `(default ${DEFAULT_CHUNK_BYTES / 1024 / 1024} MiB), each checked by its SHA-256; after a dropped connection or a 5xx the`,
    "upload goes on from where the server got to. Then the version is published from the upload.",
    "A version of that name with the same file already there is success (a re-run pipeline); with",
    "another file it is refused. The server is --server or DEPOT_URL, the token --token or DEPOT_TOKEN.",
    "Exit codes: 0 published or already there, 1 refused by the server, 2 usage, 3 network gave up.",
  ].join("\n"),
  client: true,
  positional: "file",
  options: {
    product: { type: "string" },
    benefit: { type: "string" },
    version: { type: "string" },
    title: { type: "string" },
    changelog: { type: "string" },
    "changelog-file": { type: "string" },
    format: { type: "string" },
    "chunk-size": { type: "string" },
    json: { type: "boolean" },
    ...CONNECTION_OPTIONS,
  },
  async run(_config, values) {
    // Everything the command line can get wrong is found before the first request.
    const file = await localFile(values.file);
    const productId = requireId(values, "product");
    const benefitId = optionalId(values, "benefit");
    const fields = {
      version_name: requireString(values, "version"),
      title: requireString(values, "title"),
      changelog: await changelogOf(values),
      changelog_format: formatOf(values.format),
    };
    const chunkBytes = chunkSizeOf(values["chunk-size"]);
    const client = tokenClient(values, process.env);
    const json = values.json === true;

    const digests = new FileDigests(file.path, file.size, chunkBytes);
    const existing = await findVersionNamed(client, productId, benefitId, fields.version_name);
    if (existing) return alreadyThere(existing, await digests.whole, json);

    const progress = new Progress("upload", file.size, { plainLines: true });
    const startedAt = performance.now();
    let uploadId: string;
    try {
      uploadId = await uploadFile(client, file, digests, { chunkBytes, progress });
      progress.finish();
    } catch (error) {
      progress.abandon();
      throw error;
    }
    const seconds = (performance.now() - startedAt) / 1000;

    const target =
      benefitId === null
        ? `/api/products/${productId}/versions`
        : `/api/products/${productId}/benefits/${benefitId}/versions`;
    // Posting again after a lost answer is safe: the same name and file is the same version (200).
    const { status, version } = await client.request(
      target,
      {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify({ ...fields, upload_id: uploadId }),
      },
      {
        read: async (response) => ({
          status: response.status,
          version: (await readJson<{ data: Version }>(response)).data,
        }),
      },
    );
    const sha256 = await digests.whole;
    if (version.sha256 !== sha256) {
      throw new Refused(
        `version ${version.version_number} was published with sha256 ${version.sha256}, but ${file.path} has ${sha256}`,
      );
    }
    printResult(
      json,
      { status: status === 201 ? "published" : "already-published", upload_id: uploadId, seconds, version },
      `${status === 201 ? "published" : "already published:"} version ${version.version_number} ` +
        `(id ${version.id}, ${version.file_size} bytes, sha256 ${version.sha256}) in ${seconds.toFixed(1)}s`,
    );
    return 0;
  },
};

/** The file to publish, readable and a regular file, or a usage error (exit 2) before any request. */
async function localFile(raw: unknown): Promise<LocalFile> {
  if (typeof raw !== "string" || raw.trim() === "") throw new UsageError("FILE is required");
  const info = await stat(raw).catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(`cannot read ${raw}: ${error.code === "ENOENT" ? "no such file" : error.message}`);
  });
  if (!info.isFile()) throw new UsageError(`${raw} is not a file`);
  await access(raw, constants.R_OK).catch(() => {
    throw new UsageError(`cannot read ${raw}: permission denied`);
  });
  const name = basename(raw);
  return {
    path: raw,
    size: info.size,
    name,
    type: Bun.file(raw).type.split(";")[0] ?? "application/octet-stream",
  };
}

async function changelogOf(values: Values): Promise<string> {
  const text = values.changelog;
  const path = values["changelog-file"];
  if (text !== undefined && path !== undefined) {
    throw new UsageError("give the changelog once: --changelog TEXT or --changelog-file PATH");
  }
  if (typeof path === "string") {
    return readFile(path, "utf8").catch((error: NodeJS.ErrnoException) => {
      throw new UsageError(`cannot read the changelog file ${path}: ${error.code ?? error.message}`);
    });
  }
  if (typeof text === "string" && text.trim() !== "") return text;
  throw new UsageError("--changelog TEXT or --changelog-file PATH is required");
}

function formatOf(raw: unknown): "markdown" | "html" {
  if (raw === undefined) return "markdown";
  if (typeof raw === "string" && FORMATS.includes(raw)) return raw as "markdown" | "html";
  throw new UsageError(`--format must be markdown or html, got "${raw}"`);
}

/** --chunk-size in bytes: at least 1 MiB, so that a large file does not become thousands of requests. */
function chunkSizeOf(raw: unknown): number {
  if (raw === undefined) return DEFAULT_CHUNK_BYTES;
  const bytes = typeof raw === "string" && /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(bytes) || bytes < 1024 * 1024) {
    throw new UsageError(`--chunk-size must be a number of bytes, at least 1048576, got "${raw}"`);
  }
  return bytes;
}

/** A re-run pipeline: the same name and file is success without sending a byte; another file is refused. */
function alreadyThere(existing: Version, sha256: string, json: boolean): number {
  if (existing.sha256 !== sha256) {
    throw new Refused(
      `version ${existing.version_number} already exists with another file (sha256 ${existing.sha256}); ` +
        "publish under a new version name",
    );
  }
  printResult(
    json,
    { status: "already-published", upload_id: null, seconds: 0, version: existing },
    `already published: version ${existing.version_number} (id ${existing.id}, ${existing.file_size} bytes, ` +
      `sha256 ${existing.sha256}), nothing sent`,
  );
  return 0;
}
