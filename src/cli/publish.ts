import type { DepotClient } from "../cli-client/depot-client.ts";
import { Refused } from "../cli-client/failures.ts";
import { type Artifact, addArtifact, changeRelease, publishVersion } from "../cli-client/releases.ts";
import { FileDigests, uploadFile } from "../cli-client/tus-upload.ts";
import { findVersionNamed, type Version, versionById } from "../cli-client/versions.ts";
import { targetOf } from "../features/artifacts/file-names.ts";
import { Progress } from "../progress.ts";
import { type Command, optionalId, printResult, requireId, requireString } from "./command.ts";
import { CONNECTION_OPTIONS, CONNECTION_USAGE, tokenClient } from "./connection.ts";
import {
  changelogOf,
  channelOf,
  chunkSizeOf,
  formatOf,
  type PlannedFile,
  plannedFiles,
  signatureOf,
} from "./publish-options.ts";

export const publishCommand: Command = {
  name: "publish",
  summary: "upload release files to a depot server (resumable) and publish them as a version",
  usage:
    "depot publish FILE... --product ID [--benefit ID] --version NAME --title T " +
    "(--changelog TEXT | --changelog-file PATH) [--format markdown|html] [--platform P] [--arch A] " +
    `[--signature FILE] [--channel C] [--draft] [--critical] [--chunk-size BYTES] ${CONNECTION_USAGE} [--json]`,
  details: [
    "Each file goes up through the server's resumable upload endpoint in requests of --chunk-size bytes",
    "(default 64 MiB), each checked by its SHA-256; after a dropped connection or a 5xx the upload goes on",
    "from where the server got to. The first FILE publishes the version, the others are added to it as",
    "its files for other platforms (a file named X.sig or X.blockmap is attached to X by the server).",
    "--platform (windows, darwin, linux, any) and --arch (x86_64, aarch64, i686, armv7, universal, any)",
    "apply to every FILE; without them each file's are read from its name (-arm64, x64, .exe, .dmg,",
    ".AppImage, .deb, …; what the name does not say is any). --signature FILE sends that .sig's text with",
    "the one FILE. --channel (stable, rc, beta, alpha, dev) overrides the one the version name implies.",
    "--draft publishes a draft: not shown to holders until `depot release`. When the version is already",
    "a draft (another CI runner made it), the files are added to it: run the same command on every",
    "runner of a matrix with --draft, then `depot release NAME` once. --critical marks the version critical",
    "(update feeds tell apps to install it). Files the version already has are",
    "success without sending a byte (a re-run pipeline); another file under a released version is",
    "refused. The server is --server or DEPOT_URL, the token --token or DEPOT_TOKEN.",
    "Exit codes: 0 published, added or already there, 1 refused by the server, 2 usage, 3 network gave up.",
  ].join("\n"),
  client: true,
  positional: "file",
  manyPositionals: true,
  options: {
    product: { type: "string" },
    benefit: { type: "string" },
    version: { type: "string" },
    title: { type: "string" },
    changelog: { type: "string" },
    "changelog-file": { type: "string" },
    format: { type: "string" },
    platform: { type: "string" },
    arch: { type: "string" },
    signature: { type: "string" },
    channel: { type: "string" },
    draft: { type: "boolean" },
    critical: { type: "boolean" },
    "chunk-size": { type: "string" },
    json: { type: "boolean" },
    ...CONNECTION_OPTIONS,
  },
  async run(_config, values) {
    // Everything the command line can get wrong is found before the first request.
    const files = await plannedFiles(values);
    const signature = await signatureOf(values.signature, files);
    const productId = requireId(values, "product");
    const benefitId = optionalId(values, "benefit");
    const channel = channelOf(values.channel);
    const fields = {
      version_name: requireString(values, "version"),
      title: requireString(values, "title"),
      changelog: await changelogOf(values),
      changelog_format: formatOf(values.format),
      ...(channel === null ? {} : { channel }),
      ...(values.draft === true ? { draft: true } : {}),
    };
    const publisher = new Publisher(
      tokenClient(values, process.env),
      chunkSizeOf(values["chunk-size"]),
      signature,
      files.length > 1,
    );
    const startedAt = performance.now();

    let version = await findVersionNamed(publisher.client, productId, benefitId, fields.version_name);
    let status: "published" | "drafted" | "added" | "already-published" = "already-published";
    let uploadId: string | null = null;
    let warnings: string[] = [];
    const results: FileResult[] = [];
    let rest = files;
    if (version === null) {
      const [first, ...others] = files as [PlannedFile, ...PlannedFile[]];
      uploadId = await publisher.upload(first);
      try {
        const published = await publishVersion(publisher.client, productId, benefitId, {
          ...fields,
          ...publisher.fileFields(first, uploadId, { omitAny: true }),
        });
        version = published.version;
        warnings = published.warnings;
        status = published.status === 201 ? (version.status === "draft" ? "drafted" : "published") : status;
        results.push(await publisher.result(first, published.status === 201 ? "sent" : "already-there"));
        rest = others;
      } catch (error) {
        // Another runner of the matrix published the name first (422: the name has another file): add
        // this file to its version, with the others.
        if (!(error instanceof Refused && error.status === 422)) throw error;
        version = await findVersionNamed(publisher.client, productId, benefitId, fields.version_name);
        if (version === null) throw error;
        uploadId = null;
      }
    }
    // The files of this call go to the version it has just published, released or not.
    const created = rest !== files;
    for (const file of rest) {
      const result = await publisher.add(productId, version, file, created);
      results.push(result);
      if (result.status === "sent" && status === "already-published") status = "added";
    }
    const seconds = (performance.now() - startedAt) / 1000;
    let final = rest.length > 0 ? await versionById(publisher.client, productId, version.id) : version;
    // Publishing takes no release fields: the mark is its own PATCH (the same again changes nothing).
    if (values.critical === true && !final.critical) {
      final = await changeRelease(publisher.client, productId, final.id, { critical: true });
    }
    await publisher.checkStored(final, files);
    // On stderr, so a script reading the result line still reads one line; `--json` carries them too.
    for (const warning of warnings) process.stderr.write(`warning: ${warning}\n`);
    printResult(
      values.json === true,
      {
        status,
        upload_id: uploadId,
        seconds,
        version: final,
        files: results,
        ...(warnings.length > 0 ? { warnings } : {}),
      },
      summary(status, final, results, seconds),
    );
    return 0;
  },
};

interface FileResult {
  file: string;
  status: "sent" | "already-there";
  /** The file's own size and SHA-256, as this machine read them. */
  size: number;
  sha256: string;
}

/** Uploads files and publishes or adds them, each once: what is already there is not sent again. */
class Publisher {
  readonly #digests = new Map<string, FileDigests>();

  constructor(
    readonly client: DepotClient,
    private readonly chunkBytes: number,
    private readonly signature: string | null,
    /** Several files: each progress line names its file. */
    private readonly several: boolean,
  ) {}

  digests(file: PlannedFile): FileDigests {
    let digests = this.#digests.get(file.path);
    if (!digests) {
      digests = new FileDigests(file.path, file.size, this.chunkBytes);
      this.#digests.set(file.path, digests);
    }
    return digests;
  }

  async upload(file: PlannedFile): Promise<string> {
    const label = this.several ? `upload ${file.name}` : "upload";
    const progress = new Progress(label, file.size, { plainLines: true });
    try {
      const id = await uploadFile(this.client, file, this.digests(file), {
        chunkBytes: this.chunkBytes,
        progress,
      });
      progress.finish();
      return id;
    } catch (error) {
      progress.abandon();
      throw error;
    }
  }

  /**
   * A file's fields in a publish or an artifact. `omitAny` leaves out a platform and arch of `any` that
   * the server would read from the name too (the same table), so that publishing a file of no
   * particular platform is the request it always was; an `any` given for a name that says otherwise
   * (`--platform any` for an `.exe`) is sent.
   */
  fileFields(file: PlannedFile, uploadId: string, options: { omitAny?: boolean } = {}) {
    const named = targetOf(file.name);
    const omit = (given: string, read: string) => options.omitAny && given === "any" && read === "any";
    return {
      upload_id: uploadId,
      ...(omit(file.platform, named.platform) ? {} : { platform: file.platform }),
      ...(omit(file.arch, named.arch) ? {} : { arch: file.arch }),
      ...(this.signature === null ? {} : { signature: this.signature }),
    };
  }

  /**
   * Adds `file` to `version` unless it already holds it. A draft takes new files, and so does the
   * version this call has just published (`created`); any other only confirms the ones it has, as a
   * re-run pipeline's publish does.
   */
  async add(productId: number, version: Version, file: PlannedFile, created: boolean): Promise<FileResult> {
    const sha256 = await this.digests(file).whole;
    if (holds(version, sha256)) return this.result(file, "already-there");
    if (!created && version.status !== "draft") {
      throw new Refused(
        `version ${version.version_number} already exists with another file (sha256 ${version.sha256}); ` +
          `publish under a new version name${version.status === "published" ? ", or add files to a draft (--draft) before releasing it" : ""}`,
      );
    }
    const uploadId = await this.upload(file);
    const { status } = await addArtifact(this.client, productId, version.id, {
      ...this.fileFields(file, uploadId),
      platform: file.platform,
      arch: file.arch,
    });
    return this.result(file, status === 201 ? "sent" : "already-there");
  }

  async result(file: PlannedFile, status: FileResult["status"]): Promise<FileResult> {
    return { file: file.name, status, size: file.size, sha256: await this.digests(file).whole };
  }

  /** Every file must be in the version as this machine has it: a server that stored other bytes is refused. */
  async checkStored(version: Version, files: PlannedFile[]): Promise<void> {
    for (const file of files) {
      // A .sig or .blockmap is attached to its file, not listed: its bytes are the server's to check.
      if (/\.(sig|blockmap)$/i.test(file.name)) continue;
      const sha256 = await this.digests(file).whole;
      if (!holds(version, sha256)) {
        throw new Refused(
          `version ${version.version_number} does not hold ${file.name} as sent (sha256 ${sha256}): ` +
            `it has ${describeFiles(version)}`,
        );
      }
    }
  }
}

/** Whether the version has a file with these bytes (its first, or any artifact). */
const holds = (version: Version, sha256: string) =>
  version.sha256 === sha256 ||
  (version.artifacts ?? []).some((artifact: Artifact) => artifact.sha256 === sha256);

const describeFiles = (version: Version) =>
  (version.artifacts ?? [{ file_name: version.file_name, sha256: version.sha256 }])
    .map((artifact) => `${artifact.file_name} (sha256 ${artifact.sha256})`)
    .join(", ");

function summary(status: string, version: Version, results: FileResult[], seconds: number): string {
  const base = `version ${version.version_number} (id ${version.id}, ${version.file_size} bytes, sha256 ${version.sha256}${version.critical ? ", critical" : ""})`;
  const time = `in ${seconds.toFixed(1)}s`;
  const files = results.length > 1 ? ` with ${results.length} files` : "";
  if (status === "published") return `published ${base}${files} ${time}`;
  if (status === "drafted") return `published ${base} as a draft${files} ${time}`;
  if (status === "added") {
    // Each file added with its own size and hash: the version's first file is another one.
    const sent = results
      .filter((result) => result.status === "sent")
      .map((result) => `${result.file} (${result.size} bytes, sha256 ${result.sha256})`);
    return `added ${sent.join(", ")} to version ${version.version_number} (id ${version.id}) ${time}`;
  }
  return `already published: ${base}, nothing sent`;
}
