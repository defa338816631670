import { lstat, rename, rm } from "node:fs/promises";
import { Progress } from "../progress.ts";
import type { DepotClient } from "./depot-client.ts";
import { ClientFailure, EXIT, Refused } from "./failures.ts";
import { sha256OfReprDigest } from "./file-headers.ts";
import { IDLE_TIMEOUT_MS, IdleTimer } from "./idle-timer.ts";
import { PartFile } from "./part-file.ts";
import type { RemoteFile } from "./remote-file.ts";
import { Retryable, retryNotice, withRetries } from "./retry.ts";

/** A digest the finished file must have, and who said so (for the message when it does not). */
export interface ExpectedDigest {
  source: string;
  sha256: string;
}

export interface Downloaded {
  path: string;
  size: number;
  sha256: string;
  /** Bytes that were already in `PATH.part` when the command started (0: a fresh download). */
  resumedFrom: number;
}

export interface DownloadOptions {
  /** The progress bar's label. */
  label: string;
  /** Whether a file already at `output` may be replaced (the user asked: --force, or -o FILE). */
  replace: boolean;
}

/**
 * Downloads `remote` to `output` through `output.part`: resumes what a `.part` holds (Range with
 * If-Range), retries connection errors and 5xx with backoff (each retry resumes), starts over when
 * the server sends the whole file instead of the rest, and checks the SHA-256 against the
 * Repr-Digest of every answer and `expected` before renaming into place. On a mismatch the `.part`
 * is deleted (it cannot be continued) and Refused is thrown. Unless `options.replace`, a file that
 * appeared at `output` meanwhile is not replaced: the verified `.part` stays for a run with --force.
 */
export async function downloadFile(
  client: DepotClient,
  path: string,
  remote: RemoteFile,
  output: string,
  expected: ExpectedDigest[],
  options: DownloadOptions,
): Promise<Downloaded> {
  const part = await PartFile.open(`${output}.part`, remote.size).catch((error: Error) => {
    throw new ClientFailure(`cannot write ${output}.part: ${error.message}`, EXIT.refused);
  });
  const resumedFrom = part.size;
  const progress = new Progress(options.label, remote.size, { done: resumedFrom, plainLines: true });
  if (resumedFrom > 0) progress.note(`resuming ${part.path} at ${resumedFrom} of ${remote.size} bytes`);
  const digests = [...expected];
  if (remote.sha256 !== null) digests.push({ source: "the server's Repr-Digest", sha256: remote.sha256 });
  let sha256: string;
  try {
    await withRetries(
      client.retry,
      () => transfer(client, path, remote, part, progress, digests),
      (error, delayMs, failures) => progress.note(retryNotice(error, delayMs, failures, client.retry)),
    );
    progress.finish();
    sha256 = part.sha256();
  } catch (error) {
    progress.abandon();
    if (error instanceof SentTooMuch) await part.discard();
    throw error;
  } finally {
    await part.close({ sync: true });
  }
  await verify(part.path, sha256, digests);
  if (!options.replace) await refuseToReplace(output);
  await rename(part.path, output);
  return { path: output, size: remote.size, sha256, resumedFrom };
}

/**
 * A file the user did not name is never replaced unasked, as `curl -OJ` refuses to: the name came
 * from the server. Exit 2, as for a usage error: --force or -o is the fix.
 */
export async function refuseToReplace(output: string) {
  const taken = await lstat(output).then(
    () => true,
    () => false,
  );
  if (taken) {
    throw new ClientFailure(
      `${output} already exists: pass --force to replace it, or -o FILE to save it elsewhere`,
      EXIT.usage,
    );
  }
}

/** One attempt: asks for what the `.part` lacks and appends it; Retryable if it ends short. */
async function transfer(
  client: DepotClient,
  path: string,
  remote: RemoteFile,
  part: PartFile,
  progress: Progress,
  digests: ExpectedDigest[],
) {
  const offset = part.size;
  if (offset === remote.size) return;
  const idle = new IdleTimer(IDLE_TIMEOUT_MS);
  try {
    const headers: Record<string, string> = {};
    if (offset > 0) {
      headers.range = `bytes=${offset}-`;
      if (remote.etag !== null) headers["if-range"] = remote.etag;
    }
    const response = await client.send(path, { headers, signal: idle.signal });
    if (response.status === 206) {
      const start = /^bytes (\d+)-/.exec(response.headers.get("content-range") ?? "")?.[1];
      if (Number(start) !== offset) {
        throw new Refused(
          `asked for the bytes from ${offset}, ${client.url(path)} sent a range from ${start}`,
        );
      }
    } else if (response.status === 200) {
      if (offset > 0) progress.note("the server sent the whole file instead of the rest: starting over");
      await part.truncate();
      progress.restart(0);
    } else {
      throw new Refused(`${client.url(path)} answered ${response.status} without the file`, response.status);
    }
    const announced = sha256OfReprDigest(response.headers.get("repr-digest"));
    if (announced !== null && !digests.some((d) => d.sha256 === announced)) {
      digests.push({ source: "the download's Repr-Digest", sha256: announced });
    }
    await copyBody(response, part, remote.size, progress, idle);
  } catch (error) {
    if (!(error instanceof Retryable)) throw error;
    throw new Retryable(error.message, part.size > offset);
  } finally {
    idle.stop();
  }
  if (part.size < remote.size) {
    throw new Retryable(`the connection closed at ${part.size} of ${remote.size} bytes`, part.size > offset);
  }
}

/**
 * More bytes than the file has: a server gone wrong or one filling the disk. The bytes stop at once
 * and the `.part` is deleted, since nothing says which of its bytes belong to the file.
 */
class SentTooMuch extends Refused {}

/** Appends the body to `part`, stopping before a byte past `size` (the file's announced length). */
async function copyBody(
  response: Response,
  part: PartFile,
  size: number,
  progress: Progress,
  idle: IdleTimer,
) {
  if (!response.body) return;
  const reader = response.body.getReader();
  try {
    for (;;) {
      idle.touch();
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        const why = idle.fired ? `no data for ${IDLE_TIMEOUT_MS / 1000} s` : (error as Error).message;
        throw new Retryable(`the download broke off at ${part.size} bytes: ${why}`);
      }
      if (chunk.done) return;
      if (part.size + chunk.value.byteLength > size) {
        await reader.cancel();
        throw new SentTooMuch(
          `${response.url} sent more than the ${size} bytes it announced: stopped, and deleted ${part.path}`,
        );
      }
      await part.append(chunk.value).catch((error: Error) => {
        throw new ClientFailure(`cannot write ${part.path}: ${error.message}`, EXIT.refused);
      });
      progress.advance(chunk.value.byteLength);
    }
  } finally {
    reader.releaseLock();
  }
}

async function verify(partPath: string, sha256: string, digests: ExpectedDigest[]) {
  if (digests.length === 0) {
    await rm(partPath, { force: true });
    throw new Refused("the server announced no SHA-256 to check the download against; nothing was kept");
  }
  const wrong = digests.find((d) => d.sha256 !== sha256);
  if (wrong) {
    await rm(partPath, { force: true });
    throw new Refused(
      `the downloaded file's SHA-256 is ${sha256}, but ${wrong.source} says ${wrong.sha256}: ` +
        `deleted ${partPath}; run the command again to download it from the start`,
    );
  }
}
