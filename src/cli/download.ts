import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { type Credential, DepotClient } from "../cli-client/depot-client.ts";
import { downloadFile, type ExpectedDigest, refuseToReplace } from "../cli-client/download.ts";
import { Refused } from "../cli-client/failures.ts";
import { safeFileName } from "../cli-client/file-headers.ts";
import { type RemoteFile, remoteFile } from "../cli-client/remote-file.ts";
import {
  downloadPath,
  latestVersion,
  type Version,
  versionById,
  versionNamed,
} from "../cli-client/versions.ts";
import { type Command, optionalId, printResult, requireId, UsageError } from "./command.ts";
import { CONNECTION_OPTIONS, resolveServer, resolveToken, retryPolicy, storedLogin } from "./connection.ts";

type Values = Record<string, string | boolean | string[] | undefined>;

export const downloadCommand: Command = {
  name: "download",
  summary: "download a version's file from a depot server, resuming and verifying its SHA-256",
  usage:
    "depot download --product ID [--version NAME|latest | --version-id ID] [--benefit ID] [-o PATH] " +
    "[--force] [--token T | --license-key K] [--server URL] [--json]",
  details: [
    "--version defaults to latest: the newest version of the whole product, or with --benefit of that benefit.",
    "-o names the file, or an existing directory to save it in under the version's file name (the default:",
    "the current directory). A file already there under that name is replaced only with --force, and a",
    "name that starts with a dot is refused; -o FILE is the user's choice and replaces an existing FILE.",
    "The bytes go to PATH.part first, which a later run resumes; the file is renamed into place only",
    "once its SHA-256 matches what the server published.",
    "--license-key downloads with a license key instead of a token; the server lists versions only for",
    "a token, so it needs --version-id. The server is --server or DEPOT_URL, the token --token or",
    "DEPOT_TOKEN. Exit codes: 0 saved, 1 refused or not verified, 2 usage, 3 network (docs/reference/cli.md, Client commands).",
  ].join("\n"),
  client: true,
  options: {
    product: { type: "string" },
    version: { type: "string" },
    "version-id": { type: "string" },
    benefit: { type: "string" },
    output: { type: "string", short: "o" },
    force: { type: "boolean" },
    "license-key": { type: "string" },
    json: { type: "boolean" },
    ...CONNECTION_OPTIONS,
  },
  async run(_config, values) {
    // Everything that can be wrong with the command line is found before the first request.
    const productId = requireId(values, "product");
    const benefitId = optionalId(values, "benefit");
    const versionId = optionalId(values, "version-id");
    const name = versionName(values);
    if (versionId !== null && (name !== null || benefitId !== null)) {
      throw new UsageError("--version-id names one version: give it without --version and --benefit");
    }
    const login = storedLogin(process.env);
    const server = resolveServer(values, process.env, login);
    const credential = downloadCredential(values, process.env, server, login);
    if (credential.kind === "license-key" && versionId === null) {
      throw new UsageError("--license-key needs --version-id: the server lists versions only for a token");
    }
    const destination = await destinationOf(values.output);
    const client = new DepotClient(server, credential, retryPolicy(process.env));

    const version = await findVersion(client, productId, benefitId, versionId, name);
    const id = version?.id ?? (versionId as number);
    const path = downloadPath(productId, id);
    const remote = await remoteFile(client, path);
    const output = destination.file ?? join(destination.dir, serverFileName(version, remote, id));
    const replace = values.force === true || destination.file !== null;
    if (!replace) await refuseToReplace(output);
    process.stderr.write(
      `downloading ${version ? `version ${version.version_number}` : `version id ${id}`} ` +
        `(${remote.size} bytes) to ${output}\n`,
    );
    const expected: ExpectedDigest[] = version
      ? [{ source: `the sha256 of version ${version.version_number} in the API`, sha256: version.sha256 }]
      : [];
    const saved = await downloadFile(client, path, remote, output, expected, { label: "download", replace });
    printResult(
      values.json === true,
      {
        path: saved.path,
        file_name: basename(saved.path),
        size: saved.size,
        sha256: saved.sha256,
        product_id: productId,
        version: version?.version_number ?? null,
        version_id: id,
        benefit_id: version?.purchase_benefit_id ?? null,
        resumed_from: saved.resumedFrom,
      },
      `Saved ${saved.path} (${saved.size} bytes, sha256 ${saved.sha256}` +
        `${version ? `, version ${version.version_number}` : ""}).`,
    );
    return 0;
  },
};

/** `--version NAME`, null for latest (the default, or `--version latest`). */
function versionName(values: Values): string | null {
  if (values.version === undefined) return null;
  const name = String(values.version).trim();
  if (name === "") throw new UsageError("--version is empty: give a version name, or latest");
  return name === "latest" ? null : name;
}

/**
 * The name to save under when -o gives none: the API's `file_name` (the Content-Disposition is only
 * its echo and is not followed), or, with a license key that cannot read the API, the
 * Content-Disposition's. Either is reduced to a plain name; a dot file (`.bashrc`, `.profile`) is
 * refused, since the server would choose a hidden file that a shell or a tool reads.
 */
function serverFileName(version: Version | null, remote: RemoteFile, id: number): string {
  const name = version ? safeFileName(version.file_name) : remote.fileName;
  if (name?.startsWith(".")) {
    throw new Refused(
      `the server names the file "${name}"; a name that starts with a dot is not saved ` +
        "(it could be a hidden settings file): choose the name with -o FILE",
    );
  }
  return name ?? `version-${id}`;
}

/** The token (`--token`, DEPOT_TOKEN) or `--license-key`: exactly one is sent. */
function downloadCredential(
  values: Values,
  env: Record<string, string | undefined>,
  server: string,
  login: ReturnType<typeof storedLogin>,
): Credential {
  const rawKey = values["license-key"];
  if (rawKey !== undefined) {
    if (values.token !== undefined) throw new UsageError("give --token or --license-key, not both");
    const key = String(rawKey).trim();
    if (key === "") throw new UsageError("--license-key is empty");
    return { kind: "license-key", key };
  }
  const token = resolveToken(values, env, server, login);
  if (token === null)
    throw new UsageError("no credential: pass --token T, set DEPOT_TOKEN, or pass --license-key K");
  return token;
}

/** The version to download; null when only its id is known (a license key cannot read the API). */
async function findVersion(
  client: DepotClient,
  productId: number,
  benefitId: number | null,
  versionId: number | null,
  name: string | null,
): Promise<Version | null> {
  if (versionId !== null) {
    return client.credential?.kind === "token" ? versionById(client, productId, versionId) : null;
  }
  if (name === null) return latestVersion(client, productId, benefitId);
  return versionNamed(client, productId, benefitId, name);
}

/**
 * Where the file goes: `-o FILE`, `-o DIR` (an existing directory: the server's file name inside it),
 * or the current directory. The directory must exist and be writable: a usage error, found before
 * anything is downloaded.
 */
async function destinationOf(raw: unknown): Promise<{ dir: string; file: string | null }> {
  const given = typeof raw === "string" && raw.trim() !== "" ? resolve(raw) : null;
  if (raw !== undefined && given === null) throw new UsageError("-o is empty");
  const existing = given === null ? null : await stat(given).catch(() => null);
  const intoDirectory = given === null || existing?.isDirectory() === true || String(raw).endsWith("/");
  const dir = given === null ? process.cwd() : intoDirectory ? given : dirname(given);
  const dirStat = await stat(dir).catch(() => null);
  if (!dirStat?.isDirectory()) throw new UsageError(`cannot save to ${dir}: no such directory`, false);
  const writable = await access(dir, constants.W_OK).then(
    () => true,
    () => false,
  );
  if (!writable) throw new UsageError(`cannot save to ${dir}: not writable`, false);
  if (!intoDirectory && existing !== null && !existing.isFile()) {
    throw new UsageError(`cannot save to ${given}: it exists and is not a file`, false);
  }
  return { dir, file: intoDirectory ? null : given };
}
