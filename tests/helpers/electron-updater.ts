import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdtempSync } from "node:fs";
import {
  type ClientRequest,
  request as httpRequest,
  type IncomingMessage,
  type RequestOptions,
} from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { appBuilderPath } from "app-builder-bin";
import {
  type BlockMap,
  CancellationToken,
  configureRequestOptions,
  configureRequestUrl,
  type DownloadOptions,
  HttpExecutor,
  type UpdateInfo,
} from "builder-util-runtime";
import type { AppUpdater } from "electron-updater";
import { GenericDifferentialDownloader } from "electron-updater/out/differentialDownloader/GenericDifferentialDownloader";
import type { ElectronHttpExecutor } from "electron-updater/out/electronHttpExecutor";
import { GenericProvider } from "electron-updater/out/providers/GenericProvider";
import type { ResolvedUpdateFileInfo } from "electron-updater/out/types";

/**
 * electron-updater's own client code, driven without Electron: its `GenericProvider` (the feed, the
 * file URLs, the blockmap URLs) and its `GenericDifferentialDownloader` (blockmaps, ranges, sha512),
 * over a small `HttpExecutor` on node:http in place of Electron's `net`. Only the modules that import
 * no `electron` are loaded (the updaters themselves do); what AppUpdater does between them — pick the
 * file, fetch both blockmaps, fall back to a full download — is the few lines below, as it does them.
 */

/** builder-util-runtime's executor over node:http: what ElectronHttpExecutor does over `net`. */
export class NodeHttpExecutor extends HttpExecutor<ClientRequest> {
  createRequest(options: RequestOptions, callback: (response: IncomingMessage) => void): ClientRequest {
    // A connection per request, as the tests need no pooling: builder-util-runtime adds a timeout
    // listener to the socket for each request, and a pooled socket would collect them.
    const request = httpRequest({ ...options, agent: false });
    request.on("response", callback);
    return request;
  }

  /** ElectronHttpExecutor.download, unchanged: the sha512 is checked as the file is written. */
  download(url: URL, destination: string, options: DownloadOptions): Promise<string> {
    return options.cancellationToken.createPromise<string>((resolve, reject, onCancel) => {
      const requestOptions: RequestOptions = { headers: options.headers ?? undefined };
      configureRequestUrl(url, requestOptions);
      configureRequestOptions(requestOptions);
      this.doDownload(
        requestOptions,
        {
          destination,
          options,
          onCancel,
          callback: (error) => (error == null ? resolve(destination) : reject(error)),
          responseHandler: null,
        },
        0,
      );
    });
  }
}

export interface UpdaterClient {
  executor: NodeHttpExecutor;
  provider: GenericProvider;
  headers: Record<string, string>;
}

/**
 * The generic provider as an app configures it (`publish: {provider: "generic", url, channel}`), on
 * `platform`, sending `headers` (`Authorization: License …`, `x-user-staging-id`) as
 * `autoUpdater.requestHeaders` does.
 */
export function genericClient(options: {
  url: string;
  platform: "win32" | "darwin" | "linux";
  channel?: string;
  headers?: Record<string, string>;
  multipleRanges?: boolean;
}): UpdaterClient {
  const executor = new NodeHttpExecutor();
  // The provider reads only these two fields of its updater.
  const updater = { channel: options.channel ?? null, isAddNoCacheQuery: false } as unknown as AppUpdater;
  const provider = new GenericProvider({ provider: "generic", url: options.url }, updater, {
    executor: executor as unknown as ElectronHttpExecutor,
    platform: options.platform,
    isUseMultipleRangeRequest: options.multipleRanges ?? true,
  });
  const headers = options.headers ?? {};
  provider.setRequestHeaders(headers);
  return { executor, provider, headers };
}

/** The feed as the provider reads it, and its files resolved against the feed's URL. */
export async function checkForUpdate(
  client: UpdaterClient,
): Promise<{ info: UpdateInfo; files: ResolvedUpdateFileInfo[] }> {
  const info = await client.provider.getLatestVersion();
  return { info, files: client.provider.resolveFiles(info) };
}

/** A full download of `file` into `destination`; rejects when the sha512 differs. */
export function downloadFull(client: UpdaterClient, file: ResolvedUpdateFileInfo, destination: string) {
  return client.executor.download(file.url, destination, {
    headers: client.headers,
    sha512: file.info.sha512,
    cancellationToken: new CancellationToken(),
  });
}

/** Logs as electron-updater's logger; kept so a test can show what the downloader planned. */
export interface UpdaterLog {
  lines: string[];
}

/**
 * AppUpdater.differentialDownloadInstaller's steps: the old and new blockmap URLs from the provider
 * (the new file's URL with the new version replaced by the old one, + `.blockmap`), both blockmaps
 * fetched and gunzipped, then the differential downloader builds `newFile` from `oldFile` and the
 * ranges it fetches, and checks its sha512. Resolves to what the downloader logged.
 */
export async function downloadDifferential(
  client: UpdaterClient,
  file: ResolvedUpdateFileInfo,
  versions: { old: string; new: string },
  files: { oldFile: string; newFile: string },
): Promise<UpdaterLog> {
  const [oldUrl, newUrl] = await client.provider.getBlockMapFiles(file.url, versions.old, versions.new);
  if (!oldUrl || !newUrl) throw new Error("the provider named no blockmaps");
  const blockMap = async (url: URL): Promise<BlockMap> => {
    const data = await client.executor.downloadToBuffer(url, {
      headers: client.headers,
      cancellationToken: new CancellationToken(),
    });
    return JSON.parse(gunzipSync(data).toString());
  };
  const [oldMap, newMap] = [await blockMap(oldUrl), await blockMap(newUrl)];
  const log: UpdaterLog = { lines: [] };
  const logger = {
    info: (message: unknown) => log.lines.push(String(message)),
    warn: (message: unknown) => log.lines.push(String(message)),
    error: (message: unknown) => log.lines.push(String(message)),
  };
  await new GenericDifferentialDownloader(file.info as never, client.executor, {
    newUrl: file.url,
    oldFile: files.oldFile,
    newFile: files.newFile,
    logger,
    requestHeaders: client.headers,
    isUseMultipleRangeRequest: client.provider.isUseMultipleRangeRequest,
    cancellationToken: new CancellationToken(),
  }).download(oldMap, newMap);
  return log;
}

/**
 * Writes `file.blockmap` beside `file` with the tool electron-builder used for it (app-builder's
 * `blockmap` command: content-defined chunks, gzip), and returns what it reports.
 */
export function writeBlockmap(file: string): { size: number; sha512: string; blockmap: string } {
  const blockmap = `${file}.blockmap`;
  const out = execFileSync(appBuilder(), ["blockmap", "--input", file, "--output", blockmap], {
    encoding: "utf8",
  });
  return { ...(JSON.parse(out) as { size: number; sha512: string }), blockmap };
}

let appBuilderCopy: string | undefined;

/**
 * app-builder-bin's tarball stores its binaries without the executable bit (electron-builder sets it
 * before use); a private executable copy leaves node_modules as npm installed it.
 */
function appBuilder(): string {
  if (appBuilderCopy) return appBuilderCopy;
  const copy = join(mkdtempSync(join(tmpdir(), "app-builder-")), "app-builder");
  copyFileSync(appBuilderPath, copy);
  chmodSync(copy, 0o755);
  appBuilderCopy = copy;
  return copy;
}
