/**
 * A seeded depot for the client libraries' tests and the conformance run: starts `depot serve` on
 * its embedded database in a new temporary directory, makes what an app needs (a product, a plain
 * license, a machine license, two published versions with files for Linux and Windows), pins the
 * JWKS to a file, and writes what it made as one JSON object:
 *
 *   bun sdk/conformance/start-depot.ts [--binary dist/depot] [--out fixture.json]
 *
 *   {"server":"http://127.0.0.1:18123","jwks":"/tmp/…/jwks.json","productId":"1","key":"…",
 *    "machineKey":"…","otherKey":"…","otherProductId":"2","ownerId":"1","apiKey":"…","token":"1|…",
 *    "dataDir":"/tmp/…","pid":1234}
 *
 * `key` is a license without machines (maxIps 100), `machineKey` one with maxMachines 3,
 * `otherKey` a license of `otherProductId`. Every library's tests and the conformance run may share
 * one depot (scripts/check-sdks.sh): a test that takes seats makes its own licenses through the
 * license API (`apiKey`, owned by `ownerId`, the admin), so that no run fills another's. `pid` is the
 * `depot serve` process (a test pauses it with SIGSTOP to see depot unreachable, then resumes it). Versions 1.0.0 and 1.1.0 are published, each with
 * `desk-clock-V-linux-x86_64.tar.gz` and `Desk-Clock-Setup-V.exe`. Without --binary it runs the
 * source (`bun src/main.ts`). It prints the JSON on stdout once everything is ready and keeps the
 * server running until it gets SIGINT or SIGTERM, then stops it and removes the directory.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const args = process.argv.slice(2);
const option = (name: string) => {
  const at = args.indexOf(name);
  return at === -1 ? undefined : args[at + 1];
};
const root = resolve(import.meta.dir, "../..");
const binary = option("--binary");
const command = binary ? [resolve(binary)] : [process.execPath, join(root, "src/main.ts")];

const dir = mkdtempSync(join(tmpdir(), "depot-sdk-"));
const port = await freePort();
const server = `http://127.0.0.1:${port}`;
const env: Record<string, string | undefined> = {
  ...process.env,
  PORT: String(port),
  HOST: "127.0.0.1",
  APP_URL: server,
  DATABASE_URL: "",
  TEST_DATABASE_URL: "",
  LOG_LEVEL: "warn",
};
delete env.DATABASE_URL;
delete env.DATA_DIR;
delete env.APP_KEY;

function freePort(): Promise<number> {
  return new Promise((done, failed) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => (typeof address === "object" && address ? done(address.port) : failed()));
    });
  });
}

const child = spawn(command[0] as string, [...command.slice(1), "serve"], {
  cwd: dir,
  env,
  stdio: ["ignore", "ignore", "inherit"],
});
let stopping = false;
child.on("exit", (code) => {
  if (!stopping) {
    console.error(`start-depot: depot serve exited (${code})`);
    process.exit(1);
  }
});
const stop = (code = 0) => {
  stopping = true;
  child.kill("SIGTERM");
  child.once("exit", () => {
    rmSync(dir, { recursive: true, force: true });
    process.exit(code);
  });
};
process.on("SIGINT", () => stop());
process.on("SIGTERM", () => stop());
// A failure while seeding must not leave the server running on its own.
process.on("uncaughtException", (error) => {
  console.error(`start-depot: ${error.message}`);
  stop(1);
});

/** A CLI command against the running server (it forwards to the server that holds the database). */
function depot(...argv: string[]): Record<string, unknown> {
  const run = spawnSync(command[0] as string, [...command.slice(1), ...argv, "--json"], {
    cwd: dir,
    env,
    encoding: "utf8",
  });
  if (run.status !== 0) throw new Error(`depot ${argv.join(" ")} failed: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

async function call(path: string, init: RequestInit & { json?: unknown } = {}) {
  const headers = new Headers(init.headers);
  if (init.json !== undefined) headers.set("content-type", "application/json");
  const response = await fetch(`${server}${path}`, {
    ...init,
    headers,
    body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${init.method ?? "GET"} ${path}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

// A first start (initdb, migrations) takes seconds alone, minutes on a machine busy with other builds.
const deadline = Date.now() + 300_000;
for (;;) {
  const healthy = await fetch(`${server}/api/health`)
    .then((r) => r.ok)
    .catch(() => false);
  if (healthy) break;
  if (Date.now() > deadline) throw new Error("depot did not become healthy within 300 s");
  await Bun.sleep(200);
}

const admin = depot("user:create", "--name", "Ada", "--email", "ada@example.com", "--role", "admin");
const token = String(depot("token:create", "--user", String(admin.id), "--name", "sdk").token);
const product = depot("product:create", "--name", "Desk Clock", "--owner", "ada@example.com");
const other = depot("product:create", "--name", "Other Thing", "--owner", "ada@example.com");
const apiKey = String(depot("api-key:create", "--name", "sdk").key);

const license = (productId: unknown, extra: Record<string, unknown> = {}) =>
  call("/api/v1/licenses", {
    method: "POST",
    headers: { "x-api-key": apiKey },
    json: { ownerId: String(admin.id), creatorId: String(admin.id), productId: String(productId), ...extra },
  });
const plain = await license(product.id, { maxIps: 100 });
const machines = await license(product.id, { maxMachines: 3, maxIps: 100 });
const others = await license(other.id);

for (const version of ["1.0.0", "1.1.0"]) {
  const files = [
    { name: `desk-clock-${version}-linux-x86_64.tar.gz`, platform: "linux", arch: "x86_64" },
    { name: `Desk-Clock-Setup-${version}.exe`, platform: "windows", arch: "x86_64" },
  ];
  const first = files[0] as (typeof files)[number];
  const form = new FormData();
  form.set("version_name", version);
  form.set("title", `Desk Clock ${version}`);
  form.set("changelog", `- release ${version}`);
  form.set("platform", first.platform);
  form.set("arch", first.arch);
  form.set("file", new File([`${first.name} bytes\n`], first.name));
  const published = await call(`/api/products/${product.id}/versions`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  for (const file of files.slice(1)) {
    const more = new FormData();
    more.set("platform", file.platform);
    more.set("arch", file.arch);
    more.set("file", new File([`${file.name} bytes\n`], file.name));
    await call(`/api/products/${product.id}/versions/${published.data.id}/artifacts`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
      body: more,
    });
  }
}

const jwks = join(dir, "jwks.json");
writeFileSync(jwks, JSON.stringify(await call("/.well-known/jwks.json")));
const fixture = {
  server,
  jwks,
  productId: String(product.id),
  key: plain.key,
  machineKey: machines.key,
  otherKey: others.key,
  otherProductId: String(other.id),
  ownerId: String(admin.id),
  apiKey,
  token,
  dataDir: dir,
  pid: child.pid,
};
const out = option("--out");
if (out) writeFileSync(out, `${JSON.stringify(fixture)}\n`);
console.log(JSON.stringify(fixture));
