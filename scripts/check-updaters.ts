// Runs the updater client configurations of docs/integrators.md ("Update feeds for installed apps")
// against a depot binary, so the documented configuration cannot drift from what the binary serves.
//
//   bun scripts/check-updaters.ts dist/depot
//
// The blocks are taken from the docs by the `<!-- checked: NAME -->` comment right before each; the
// documented placeholders (https://depot.example.com, product 1, `licenseKey`) become this run's
// server, product and license key. What each check runs:
// - Electron: electron-updater's own GenericProvider (no Electron: tests/helpers/electron-updater.ts)
//   with the documented `publish:` and `requestHeaders`, on Windows and macOS: it must resolve the
//   published version and download the file with the sha512 the feed names, and the file's blockmap.
// - Tauri: the documented `endpoints` template filled in as the plugin does, with the documented
//   `check({ headers })`; the answer's signature is checked with `minisign -V` against the key that
//   signed the file, as the plugin checks it against `pubkey`; the installed version gets 204.
// - Sparkle and Squirrel.Mac are macOS code that cannot run here: the documented feed URL and headers
//   are fetched, the appcast read by an XML parser (Python's) and its edSignature checked with
//   Ed25519, the Squirrel JSON read, and the file each names downloaded and compared.
// One line per check; exit 1 with what differed when one fails.
import { execFileSync } from "node:child_process";
import { createHash, generateKeyPairSync, sign, verify } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { gunzipSync } from "node:zlib";
import { parseAppcast } from "../tests/helpers/appcast.ts";
import {
  checkForUpdate,
  downloadFull,
  genericClient,
  writeBlockmap,
} from "../tests/helpers/electron-updater.ts";

const root = resolve(import.meta.dir, "..");
const DOC = join(root, "docs/integrators.md");
/** What the docs write for the server and the product; replaced by this run's. */
const DOC_HOST = "https://depot.example.com";
const DOC_PRODUCT = "/updates/1/";

/** The blocks the checks read, by marker name (tests/check-updaters.test.ts holds the page to them). */
export const CHECKED_BLOCKS = [
  "electron-builder",
  "electron-updater",
  "tauri-conf",
  "tauri-check",
  "sparkle-plist",
  "sparkle-headers",
  "squirrel-mac",
] as const;

/** The code block right after `<!-- checked: NAME -->` in the docs. */
export function checkedBlock(markdown: string, name: (typeof CHECKED_BLOCKS)[number]): string {
  const match = new RegExp(`<!-- checked: ${name} -->\\n\`\`\`[a-z]*\\n([\\s\\S]*?)\\n\`\`\`\\n`).exec(
    markdown,
  );
  if (!match?.[1]) throw new Error(`docs/integrators.md has no code block marked <!-- checked: ${name} -->`);
  return match[1];
}

/** Evaluates a documented JavaScript expression with the names it uses (licenseKey, process, app). */
function evaluate(expression: string, names: Record<string, unknown>): unknown {
  return new Function(...Object.keys(names), `return (${expression});`)(...Object.values(names));
}

function one(text: string, pattern: RegExp, what: string): string {
  const found = pattern.exec(text)?.[1];
  if (found === undefined)
    throw new Error(`the documented ${what} is not where this check reads it (${pattern})`);
  return found;
}

const sha512 = (bytes: Uint8Array) => createHash("sha512").update(bytes).digest("base64");

function equal(what: string, actual: unknown, expected: unknown) {
  if (JSON.stringify(actual) !== JSON.stringify(expected))
    throw new Error(`${what}: got ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`);
}

async function freePort(): Promise<number> {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = probe.port;
  await probe.stop(true);
  if (port === undefined) throw new Error("no free port");
  return port;
}

async function main(binary: string) {
  const markdown = readFileSync(DOC, "utf8");
  const work = mkdtempSync(join(tmpdir(), "depot-updaters-"));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  // APP_URL is where the feeds' absolute file URLs point: this server.
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: work,
    LANG: "C.UTF-8",
    PORT: String(port),
    HOST: "127.0.0.1",
    APP_URL: base,
  };
  const server = Bun.spawn([binary, "serve"], {
    cwd: work,
    env,
    stdout: Bun.file(join(work, "serve.log")),
    stderr: Bun.file(join(work, "serve.err")),
  });
  const depot = (...args: string[]) =>
    JSON.parse(execFileSync(binary, [...args, "--json"], { cwd: work, env, encoding: "utf8" }));
  const failures: string[] = [];
  const check = async (name: string, run: () => Promise<string>) => {
    try {
      console.log(`ok   ${name}: ${await run()}`);
    } catch (error) {
      console.log(`FAIL ${name}`);
      // The first lines say what differed; an HttpError's stack and headers follow them.
      failures.push(`${name}: ${(error as Error).message.split("\n").slice(0, 2).join("\n  ")}`);
    }
  };
  try {
    await waitForHealth(base);

    // --- the vendor's side: admin, product, license, a release with a file per platform --------
    depot("user:create", "--name", "Ada", "--email", "ada@example.com", "--role", "admin");
    const customer = depot(
      "user:create",
      "--name",
      "Carla",
      "--email",
      "carla@example.com",
      "--role",
      "customer",
    );
    const product = depot("product:create", "--name", "Desk Clock", "--owner", "ada@example.com");
    const token = depot("token:create", "--user", "1").token as string;
    const apiKey = depot("api-key:create", "--name", "shop").key as string;
    const created = await fetch(`${base}/api/v1/licenses`, {
      method: "POST",
      headers: { "x-api-key": apiKey, "content-type": "application/json" },
      body: JSON.stringify({ ownerId: String(customer.id), creatorId: "1", productId: String(product.id) }),
    });
    if (created.status !== 201)
      throw new Error(`POST /api/v1/licenses: ${created.status} ${await created.text()}`);
    const licenseKey = ((await created.json()) as { key: string }).key;

    // The vendor's Tauri key (minisign) and Sparkle key (Ed25519), as the tests make them.
    execFileSync("minisign", ["-G", "-W", "-p", join(work, "updater.pub"), "-s", join(work, "updater.key")]);
    const sparkleKeys = generateKeyPairSync("ed25519");
    const file = (name: string, size: number) => {
      const bytes = crypto.getRandomValues(new Uint8Array(size));
      writeFileSync(join(work, name), bytes);
      return bytes;
    };
    const exe = file("App-Setup-1.1.0.exe", 256 * 1024);
    const blockmap = readFileSync(writeBlockmap(join(work, "App-Setup-1.1.0.exe")).blockmap);
    const appImage = file("app_1.1.0_amd64.AppImage.tar.gz", 3000);
    execFileSync(
      "minisign",
      ["-S", "-s", join(work, "updater.key"), "-m", join(work, "app_1.1.0_amd64.AppImage.tar.gz")],
      {
        input: "",
      },
    );
    const tauriSignature = readFileSync(join(work, "app_1.1.0_amd64.AppImage.tar.gz.minisig")).toString(
      "base64",
    );
    const macZip = file("App-1.1.0-mac.zip", 2500);
    const edSignature = sign(null, macZip, sparkleKeys.privateKey).toString("base64");
    const files = [
      { name: "App-Setup-1.1.0.exe", bytes: exe, platform: "windows", arch: "x86_64" },
      { name: "App-Setup-1.1.0.exe.blockmap", bytes: blockmap, platform: "windows", arch: "x86_64" },
      {
        name: "app_1.1.0_amd64.AppImage.tar.gz",
        bytes: appImage,
        platform: "linux",
        arch: "x86_64",
        signature: tauriSignature,
      },
      {
        name: "App-1.1.0-mac.zip",
        bytes: macZip,
        platform: "darwin",
        arch: "universal",
        signature: edSignature,
      },
    ];
    await publish(base, token, product.id, "1.1.0", "- faster", files);
    console.log(
      `     depot serve at ${base}: product ${product.id}, a license, release 1.1.0 with ${files.length} files`,
    );

    /** The docs' configuration for this run: its server and product, this license. */
    const here = (url: string) => url.replace(DOC_HOST, base).replace(DOC_PRODUCT, `/updates/${product.id}/`);
    const fetchAll = async (url: string, headers: Record<string, string>) => {
      const answer = await fetch(url, { headers });
      if (answer.status !== 200) throw new Error(`GET ${url}: ${answer.status} ${await answer.text()}`);
      return new Uint8Array(await answer.arrayBuffer());
    };

    // Each check reads its own blocks: a block missing or changed fails that check, not the others.

    // --- Electron: electron-updater's GenericProvider with the documented configuration ---------
    for (const [platform, name, bytes] of [
      ["win32", "App-Setup-1.1.0.exe", exe],
      ["darwin", "App-1.1.0-mac.zip", macZip],
    ] as const) {
      await check(`electron-updater (${platform})`, async () => {
        const publishYaml = checkedBlock(markdown, "electron-builder");
        equal("provider", one(publishYaml, /^\s+provider:\s*(\S+)/m, "electron-builder provider"), "generic");
        const feedUrl = here(one(publishYaml, /^\s+url:\s*(\S+)/m, "electron-builder url"));
        const mainJs = checkedBlock(markdown, "electron-updater");
        const requestHeaders = evaluate(
          one(mainJs, /autoUpdater\.requestHeaders = (\{.*\});/, "requestHeaders"),
          { licenseKey },
        ) as Record<string, string>;
        const client = genericClient({ url: feedUrl, platform, headers: requestHeaders });
        const { info, files: resolved } = await checkForUpdate(client);
        equal("version", info.version, "1.1.0");
        const [first] = resolved;
        if (!first) throw new Error("the feed names no file");
        equal("file", decodeURIComponent(first.url.pathname.split("/").at(-1) ?? ""), name);
        equal("sha512 in the feed", first.info.sha512, sha512(bytes));
        const destination = join(work, `electron-${platform}-${name}`);
        await downloadFull(client, first, destination); // rejects on a sha512 mismatch
        equal("downloaded bytes", sha512(readFileSync(destination)), sha512(bytes));
        let blockmapNote = "";
        if (platform === "win32") {
          const [, newBlockmap] = await client.provider.getBlockMapFiles(first.url, "1.0.0", "1.1.0");
          if (!newBlockmap) throw new Error("the provider names no blockmap");
          const map = JSON.parse(gunzipSync(await fetchAll(newBlockmap.href, requestHeaders)).toString());
          if (!Array.isArray(map.files)) throw new Error("the blockmap is not electron-builder's");
          blockmapNote = ", its blockmap read";
        }
        return `${feedUrl}: GenericProvider resolves ${info.version}, downloads ${name} (sha512 matches)${blockmapNote}`;
      });
    }

    // --- Tauri v2: the documented endpoint template and headers; minisign checks the signature ---
    await check("tauri (linux x86_64, installed 1.0.0)", async () => {
      const tauriConf = JSON.parse(checkedBlock(markdown, "tauri-conf"));
      if (typeof tauriConf?.plugins?.updater?.pubkey !== "string")
        throw new Error("no plugins.updater.pubkey");
      const endpoint = here(String(tauriConf?.plugins?.updater?.endpoints?.[0]));
      const tauriJs = checkedBlock(markdown, "tauri-check");
      const { headers } = evaluate(one(tauriJs, /check\((\{[\s\S]*\})\)/, "check() options"), {
        licenseKey,
      }) as {
        headers: Record<string, string>;
      };
      // What the plugin puts in the template on a Linux x86_64 machine.
      const url = (current: string) =>
        endpoint
          .replace("{{target}}", "linux")
          .replace("{{arch}}", "x86_64")
          .replace("{{current_version}}", current);
      const answer = JSON.parse(new TextDecoder().decode(await fetchAll(url("1.0.0"), headers)));
      equal("version", answer.version, "1.1.0");
      equal("notes", answer.notes, "- faster");
      const downloaded = join(work, "tauri-download.tar.gz");
      writeFileSync(downloaded, await fetchAll(answer.url, headers));
      writeFileSync(`${downloaded}.minisig`, Buffer.from(answer.signature, "base64"));
      const pub = join(work, "updater.pub");
      execFileSync("minisign", ["-V", "-p", pub, "-m", downloaded, "-x", `${downloaded}.minisig`], {
        stdio: "pipe",
      });
      const upToDate = await fetch(url("1.1.0"), { headers });
      equal("status for the installed version 1.1.0", upToDate.status, 204);
      return `${endpoint}: 1.1.0 offered, minisign -V verifies the served signature on the served file; 1.1.0 gets 204`;
    });

    // --- Sparkle 2: the documented SUFeedURL and httpHeaders (macOS: the feed is read here) -------
    await check("sparkle appcast", async () => {
      const plist = checkedBlock(markdown, "sparkle-plist");
      const swift = checkedBlock(markdown, "sparkle-headers");
      const appcastUrl = here(one(plist, /<key>SUFeedURL<\/key><string>([^<]+)<\/string>/, "SUFeedURL"));
      const headerName = one(
        swift,
        /httpHeaders = \["([^"]+)": "[^"\\]*\\\(licenseKey\)"\]/,
        "Sparkle header",
      );
      const prefix = one(
        swift,
        /httpHeaders = \["[^"]+": "([^"\\]*)\\\(licenseKey\)"\]/,
        "Sparkle header value",
      );
      const headers = { [headerName]: `${prefix}${licenseKey}` };
      const items = parseAppcast(new TextDecoder().decode(await fetchAll(appcastUrl, headers)));
      const [item] = items;
      if (items.length !== 1 || !item) throw new Error(`${items.length} items, expected 1`);
      equal("shortVersionString", item.shortVersionString, "1.1.0");
      const zip = await fetchAll(item.enclosure.url, headers);
      equal("enclosure length", item.enclosure.length, String(macZip.length));
      equal("downloaded bytes", sha512(zip), sha512(macZip));
      if (!verify(null, zip, sparkleKeys.publicKey, Buffer.from(item.enclosure.edSignature ?? "", "base64")))
        throw new Error("the edSignature does not verify on the downloaded file");
      return `${appcastUrl}: 1.1.0 in the appcast (Python's XML parser), its edSignature verifies on the enclosure (Sparkle itself: macOS only, not run)`;
    });

    // --- Squirrel.Mac: the documented setFeedURL options (macOS: the feed is read here) ----------
    for (const arch of ["x64", "arm64"]) {
      await check(`squirrel.mac (process.arch ${arch}, installed 1.0.0)`, async () => {
        const squirrelJs = checkedBlock(markdown, "squirrel-mac");
        const options = evaluate(one(squirrelJs, /setFeedURL\((\{[\s\S]*?\})\);/, "setFeedURL options"), {
          licenseKey,
          process: { arch },
          app: { getVersion: () => "1.0.0" },
        }) as { url: string; headers: Record<string, string> };
        const url = here(options.url);
        const answer = JSON.parse(new TextDecoder().decode(await fetchAll(url, options.headers)));
        equal("name", answer.name, "1.1.0");
        equal("downloaded bytes", sha512(await fetchAll(answer.url, options.headers)), sha512(macZip));
        const upToDate = await fetch(url.replace("/1.0.0", "/1.1.0"), { headers: options.headers });
        equal("status for the installed version 1.1.0", upToDate.status, 204);
        return `${url}: 1.1.0 offered, its zip downloads; 1.1.0 gets 204 (Squirrel.Mac itself: macOS only, not run)`;
      });
    }
  } catch (error) {
    failures.push(`setup: ${(error as Error).message}`);
  } finally {
    server.kill();
    await server.exited;
    if (failures.length) {
      console.error(
        `----- depot serve's log -----\n${readFileSync(join(work, "serve.err"), "utf8").slice(-4000)}`,
      );
    }
    rmSync(work, { recursive: true, force: true });
  }
  for (const failure of failures) console.error(`\n${failure}`);
  console.log(
    `\ndocumented updater configurations: ${failures.length ? `${failures.length} failed` : "all ok"}`,
  );
  return failures.length ? 1 : 0;
}

/** Publishes a version with its files through the API, as a pipeline does (tests/helpers/releases.ts). */
async function publish(
  base: string,
  token: string,
  productId: number,
  name: string,
  changelog: string,
  files: { name: string; bytes: Uint8Array; platform: string; arch: string; signature?: string }[],
) {
  const form = (file: (typeof files)[number]) => {
    const body = new FormData();
    body.append("file", new File([file.bytes], file.name, { type: "application/octet-stream" }));
    body.append("platform", file.platform);
    body.append("arch", file.arch);
    if (file.signature) body.append("signature", file.signature);
    return body;
  };
  const post = async (url: string, body: FormData) => {
    const answer = await fetch(url, { method: "POST", headers: { authorization: `Bearer ${token}` }, body });
    const text = await answer.text();
    if (answer.status !== 201) throw new Error(`POST ${url}: ${answer.status} ${text}`);
    return JSON.parse(text).data as { id: number };
  };
  const [first, ...others] = files;
  if (!first) throw new Error("a release has a file");
  const body = form(first);
  body.append("version_name", name);
  body.append("title", name);
  body.append("changelog", changelog);
  const version = await post(`${base}/api/products/${productId}/versions`, body);
  for (const file of others)
    await post(`${base}/api/products/${productId}/versions/${version.id}/artifacts`, form(file));
}

async function waitForHealth(url: string) {
  for (let attempt = 0; attempt < 300; attempt++) {
    try {
      if ((await fetch(`${url}/api/health`)).ok) return;
    } catch {}
    await Bun.sleep(100);
  }
  throw new Error(`depot serve did not answer ${url}/api/health within 30 s`);
}

if (import.meta.main) {
  const [binary] = process.argv.slice(2);
  if (!binary) {
    console.error("usage: bun scripts/check-updaters.ts BINARY");
    process.exit(2);
  }
  process.exit(await main(resolve(binary)));
}
