import { constants } from "node:fs";
import { access, readFile, stat } from "node:fs/promises";
import { basename } from "node:path";
import { ARCHES, CHANNELS, isArch, isChannel, isPlatform, PLATFORMS } from "../cli-client/targets.ts";
import { DEFAULT_CHUNK_BYTES, type LocalFile } from "../cli-client/tus-upload.ts";
import type { Arch, Platform, ReleaseChannel } from "../db/schema/release-enums.ts";
import { targetOf } from "../features/artifacts/file-names.ts";
import { UsageError } from "./command.ts";

// What `depot publish` reads from its command line, each checked before the first request: a
// mistake there is exit 2 with nothing sent.

type Values = Record<string, string | boolean | string[] | undefined>;

const FORMATS = ["markdown", "html"];

/** A file to publish and the platform and architecture it is published for. */
export interface PlannedFile extends LocalFile {
  platform: Platform;
  arch: Arch;
}

/**
 * The FILEs in the order they go up: each file's platform and architecture from --platform/--arch, or
 * else from its name (features/artifacts/file-names.ts, the table the server uses too). A `X.sig` or `X.blockmap` goes after every other file, since
 * the server attaches it to the version's file `X`, which must be there first.
 */
export async function plannedFiles(values: Values): Promise<PlannedFile[]> {
  const paths = Array.isArray(values.file) ? values.file : values.file === undefined ? [] : [values.file];
  if (paths.length === 0) throw new UsageError("FILE is required");
  const platform = choiceOf(values.platform, "platform", PLATFORMS, isPlatform);
  const arch = choiceOf(values.arch, "arch", ARCHES, isArch);
  const files: PlannedFile[] = [];
  for (const path of paths) {
    const file = await localFile(path);
    if (files.some((other) => other.name === file.name)) {
      throw new UsageError(`${file.name} is given twice: a version holds one file of each name`);
    }
    const inferred = targetOf(file.name);
    files.push({ ...file, platform: platform ?? inferred.platform, arch: arch ?? inferred.arch });
  }
  const attachment = (file: PlannedFile) => /\.(sig|blockmap)$/i.test(file.name);
  return [...files.filter((file) => !attachment(file)), ...files.filter(attachment)];
}

export function channelOf(raw: unknown): ReleaseChannel | null {
  return choiceOf(raw, "channel", CHANNELS, isChannel);
}

function choiceOf<T extends string>(
  raw: unknown,
  name: string,
  choices: readonly T[],
  is: (value: string) => value is T,
): T | null {
  if (raw === undefined) return null;
  if (typeof raw === "string" && is(raw)) return raw;
  throw new UsageError(`--${name} must be one of ${choices.join(", ")}, got "${raw}"`);
}

/**
 * The text of --signature FILE (a `.sig` as Tauri's CLI writes it, base64 of a minisign signature),
 * sent with the one FILE it signs. With several FILEs each one's `.sig` is a FILE of its own.
 */
export async function signatureOf(raw: unknown, files: PlannedFile[]): Promise<string | null> {
  if (raw === undefined) return null;
  if (typeof raw !== "string" || raw.trim() === "") throw new UsageError("--signature needs a FILE");
  if (files.length !== 1) {
    throw new UsageError(
      "--signature goes with one FILE; with several, give each file's X.sig as a FILE of its own",
    );
  }
  const text = await readFile(raw, "utf8").catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(`cannot read the signature file ${raw}: ${error.code ?? error.message}`);
  });
  if (text.trim() === "") throw new UsageError(`the signature file ${raw} is empty`);
  return text.trim();
}

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
  return {
    path: raw,
    size: info.size,
    name: basename(raw),
    type: Bun.file(raw).type.split(";")[0] ?? "application/octet-stream",
  };
}

export async function changelogOf(values: Values): Promise<string> {
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

export function formatOf(raw: unknown): "markdown" | "html" {
  if (raw === undefined) return "markdown";
  if (typeof raw === "string" && FORMATS.includes(raw)) return raw as "markdown" | "html";
  throw new UsageError(`--format must be markdown or html, got "${raw}"`);
}

/** --chunk-size in bytes: at least 1 MiB, so that a large file does not become thousands of requests. */
export function chunkSizeOf(raw: unknown): number {
  if (raw === undefined) return DEFAULT_CHUNK_BYTES;
  const bytes = typeof raw === "string" && /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(bytes) || bytes < 1024 * 1024) {
    throw new UsageError(`--chunk-size must be a number of bytes, at least 1048576, got "${raw}"`);
  }
  return bytes;
}
