import { describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, loadConfig } from "../src/config.ts";
import { processPoolSize } from "../src/db/pool-size.ts";
import { prepareDirectories } from "../src/directories.ts";
import { createLogger } from "../src/log.ts";
import { bearer, readJson, startTestApp } from "./helpers/app.ts";
import { depot, stderrLines } from "./helpers/cli.ts";
import { createUser, tokenFor } from "./helpers/factories.ts";

const dataDir = () => mkdtempSync(join(tmpdir(), "depot-config-"));

describe("loadConfig", () => {
  test("the README's configuration defaults", () => {
    const dir = dataDir();
    const config = loadConfig({ DATA_DIR: dir }, false);
    expect(config).toMatchObject({
      port: 8080,
      host: "127.0.0.1",
      hostFrom: "default",
      appUrl: "http://localhost:8080",
      databaseUrl: null,
      databaseConnectTimeoutSeconds: 5,
      databaseStatementTimeoutSeconds: 10,
      databasePoolSize: 20,
      dataDir: dir,
      storageDir: `${dir}/releases`,
      appKey: null,
      maxUploadBytes: 2 * 1024 ** 3,
      maxJsonUploadBytes: 64 * 1024 ** 2,
      maxOpenUploads: 20,
      maxOpenUploadBytes: 10 * 1024 ** 3,
      licenseDefaultMaxIps: 1,
      trustProxy: false,
      sessionLifetimeHours: 12,
      statsRetentionDays: 400,
      smtpUrl: null,
      logLevel: "info",
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  test("HOST: loopback outside a container, every interface inside one, and HOST always wins", () => {
    const dir = dataDir();
    expect(loadConfig({ DATA_DIR: dir }, false)).toMatchObject({ host: "127.0.0.1", hostFrom: "default" });
    expect(loadConfig({ DATA_DIR: dir }, true)).toMatchObject({ host: "0.0.0.0", hostFrom: "container" });
    expect(loadConfig({ DATA_DIR: dir, HOST: "0.0.0.0" }, false)).toMatchObject({
      host: "0.0.0.0",
      hostFrom: "HOST",
    });
    expect(loadConfig({ DATA_DIR: dir, HOST: "127.0.0.1" }, true)).toMatchObject({
      host: "127.0.0.1",
      hostFrom: "HOST",
    });
    // Podman, systemd-nspawn and LXC say so in the environment; a pod has the service variables.
    expect(loadConfig({ DATA_DIR: dir, container: "podman" }).host).toBe("0.0.0.0");
    expect(loadConfig({ DATA_DIR: dir, KUBERNETES_SERVICE_HOST: "10.0.0.1" }).host).toBe("0.0.0.0");
  });

  test("explicit values are parsed and APP_URL loses its trailing slash", () => {
    const config = loadConfig({
      DATA_DIR: dataDir(),
      PORT: "9000",
      APP_URL: "https://depot.example.com/",
      DATABASE_URL: "postgres://u@db:5432/depot",
      TRUST_PROXY: "true",
      MAX_UPLOAD_BYTES: "1048576",
      LOG_LEVEL: "warn",
    });
    expect(config.port).toBe(9000);
    expect(config.appUrl).toBe("https://depot.example.com");
    expect(config.databaseUrl).toBe("postgres://u@db:5432/depot");
    expect(config.trustProxy).toBe(true);
    expect(config.maxUploadBytes).toBe(1048576);
    expect(config.logLevel).toBe("warn");
  });

  test("DATABASE_POOL_SIZE: one `depot serve`'s connections, shared by its processes, 2 each at least", () => {
    expect(loadConfig({ DATA_DIR: dataDir(), DATABASE_POOL_SIZE: "64" }).databasePoolSize).toBe(64);
    expect(loadConfig({ DATA_DIR: dataDir(), DATABASE_POOL_SIZE: " 1000 " }).databasePoolSize).toBe(1000);
    // docs/operators.md (Connections): one process takes it all, two half each, and never fewer than 2.
    expect([1, 2, 3, 16].map((processes) => processPoolSize(20, processes))).toEqual([20, 10, 6, 2]);
    expect(processPoolSize(6, 2)).toBe(3);
    expect(processPoolSize(1, 1)).toBe(2);
    expect(processPoolSize(10, 8)).toBe(2);
  });

  // The docs write sizes as "2 GiB": an operator copying that (or 2GB) is understood, not refused.
  test.each([
    ["1048576", 1048576],
    ["2GiB", 2 * 1024 ** 3],
    ["2 GiB", 2 * 1024 ** 3],
    ["64 mib", 64 * 1024 ** 2],
    ["2GB", 2_000_000_000],
    ["500 MB", 500_000_000],
    ["1.5 KiB", 1536],
    ["10 B", 10],
  ])("MAX_UPLOAD_BYTES=%p is %d bytes", (raw, bytes) => {
    expect(loadConfig({ DATA_DIR: dataDir(), MAX_UPLOAD_BYTES: raw }).maxUploadBytes).toBe(bytes);
    expect(loadConfig({ DATA_DIR: dataDir(), MAX_JSON_UPLOAD_BYTES: raw }).maxJsonUploadBytes).toBe(bytes);
  });

  test.each([
    ["PORT", "abc"],
    ["PORT", "70000"],
    ["APP_URL", "not a url"],
    ["APP_URL", "ftp://example.com"],
    ["DATABASE_URL", "mysql://localhost/db"],
    ["MAX_UPLOAD_BYTES", "-5"],
    ["MAX_UPLOAD_BYTES", "1e9"],
    ["MAX_UPLOAD_BYTES", "2 XB"],
    ["MAX_UPLOAD_BYTES", "0 GiB"],
    ["MAX_UPLOAD_BYTES", "GiB"],
    ["MAX_JSON_UPLOAD_BYTES", "99999999 TiB"],
    ["MAX_OPEN_UPLOADS", "0"],
    ["MAX_OPEN_UPLOADS", "10001"],
    ["MAX_OPEN_UPLOAD_BYTES", "ten"],
    ["LICENSE_DEFAULT_MAX_IPS", "0"],
    ["MACHINE_ACTIVATIONS_PER_DAY", "0"],
    ["MACHINE_ACTIVATIONS_PER_DAY", "twenty"],
    ["TRUST_PROXY", "maybe"],
    ["SESSION_LIFETIME_HOURS", "0"],
    ["DATABASE_CONNECT_TIMEOUT_SECONDS", "0"],
    ["DATABASE_STATEMENT_TIMEOUT_SECONDS", "1.5"],
    ["DATABASE_POOL_SIZE", "0"],
    ["DATABASE_POOL_SIZE", "1001"],
    ["DATABASE_POOL_SIZE", "twenty"],
    ["LOG_LEVEL", "loud"],
    ["APP_KEY", "short"],
    ["SMTP_URL", "http://mail"],
  ])("%s=%p is refused naming the variable", (name, value) => {
    const env = { DATA_DIR: dataDir(), [name]: value };
    expect(() => loadConfig(env)).toThrow(ConfigError);
    try {
      loadConfig(env);
    } catch (error) {
      expect((error as ConfigError).variable).toBe(name);
      expect((error as Error).message.startsWith(`${name}: `)).toBe(true);
    }
  });
});

describe("a size written as the docs write it, through a listening server", () => {
  test("MAX_UPLOAD_BYTES=2GB: tus announces 2,000,000,000 bytes and a declared 2 GiB upload is a 413", async () => {
    const t = await startTestApp({ env: { MAX_UPLOAD_BYTES: "2GB" } });
    try {
      const base = t.listen();
      const options = await fetch(`${base}/api/uploads`, { method: "OPTIONS" });
      expect(options.headers.get("tus-max-size")).toBe("2000000000");
      const tooLarge = await fetch(`${base}/api/uploads`, {
        method: "POST",
        headers: {
          ...bearer(await tokenFor(t.ctx, await createUser(t.ctx, { role: "vendor" }))),
          "tus-resumable": "1.0.0",
          "upload-length": String(2 * 1024 ** 3),
        },
      });
      expect(tooLarge.status).toBe(413);
      expect(tooLarge.headers.get("content-type")).toContain("application/json");
      expect(typeof (await readJson(tooLarge)).message).toBe("string");
    } finally {
      await t.close();
    }
  });
});

describe("limits on resumable uploads per user", () => {
  test("MAX_OPEN_UPLOAD_BYTES is five uploads of MAX_UPLOAD_BYTES unless set", () => {
    const config = loadConfig({ DATA_DIR: dataDir(), MAX_UPLOAD_BYTES: "1000", MAX_OPEN_UPLOADS: "3" });
    expect(config).toMatchObject({ maxOpenUploads: 3, maxOpenUploadBytes: 5000 });
    const set = loadConfig({ DATA_DIR: dataDir(), MAX_UPLOAD_BYTES: "1000", MAX_OPEN_UPLOAD_BYTES: "1000" });
    expect(set.maxOpenUploadBytes).toBe(1000);
  });

  test("MAX_OPEN_UPLOAD_BYTES below MAX_UPLOAD_BYTES would refuse every upload of the largest size", () => {
    expect(() =>
      loadConfig({ DATA_DIR: dataDir(), MAX_UPLOAD_BYTES: "1000", MAX_OPEN_UPLOAD_BYTES: "999" }),
    ).toThrow(new ConfigError("MAX_OPEN_UPLOAD_BYTES", "must be at least MAX_UPLOAD_BYTES (1000), got 999"));
  });

  test("a bad value stops depot: exit 2 and one line naming it", async () => {
    const result = await depot(["migrate"], { DATA_DIR: dataDir(), MAX_OPEN_UPLOADS: "many" });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(stderrLines(result)).toEqual([
      'depot: invalid configuration: MAX_OPEN_UPLOADS: expected a whole number, got "many"',
    ]);
  });
});

describe("DATA_DIR and STORAGE_DIR", () => {
  test("loadConfig parses only: it creates neither directory", () => {
    const parent = dataDir();
    const config = loadConfig({ DATA_DIR: join(parent, "data"), STORAGE_DIR: join(parent, "files") });
    expect(config.dataDir).toBe(join(parent, "data"));
    expect(config.storageDir).toBe(join(parent, "files"));
    expect(readdirSync(parent)).toEqual([]);
  });

  test("prepareDirectories creates both, STORAGE_DIR under DATA_DIR by default", () => {
    const parent = dataDir();
    prepareDirectories(loadConfig({ DATA_DIR: join(parent, "data") }), createLogger("silent"));
    expect(statSync(join(parent, "data", "releases")).isDirectory()).toBe(true);
  });

  test.each([
    ["DATA_DIR", { DATA_DIR: "/proc/depot-cannot-live-here" }],
    ["STORAGE_DIR", { STORAGE_DIR: "/proc/depot-cannot-live-here" }],
  ])("an unusable %s is a ConfigError naming it", (name, env) => {
    const config = loadConfig({ DATA_DIR: dataDir(), ...env });
    const error = (() => {
      try {
        prepareDirectories(config, createLogger("silent"));
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe(name);
    expect((error as ConfigError).message).toBe(
      `${name}: directory /proc/depot-cannot-live-here is not usable (ENOENT)`,
    );
  });

  test.each([
    ["migrate", "DATA_DIR", ["migrate"]],
    ["api-key:create", "STORAGE_DIR", ["api-key:create"]],
  ])("%s with an unusable %s: exit 2 and one line naming it", async (_, name, args) => {
    const result = await depot(args, { DATA_DIR: dataDir(), [name]: "/proc/depot-cannot-live-here" });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(stderrLines(result)).toEqual([
      `depot: invalid configuration: ${name}: directory /proc/depot-cannot-live-here is not usable (ENOENT)`,
    ]);
  });
});

describe("a bad value stops the process", () => {
  test("exit code 2 and one line naming the variable", async () => {
    const result = await depot(["migrate"], { DATA_DIR: dataDir(), PORT: "eighty" });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr.trim().split("\n")).toEqual([
      'depot: invalid configuration: PORT: expected a whole number, got "eighty"',
    ]);
  });

  test("an unknown command or option exits 2 with usage", async () => {
    expect((await depot(["frobnicate"])).code).toBe(2);
    const result = await depot(["token:create", "--usr", "1"], { DATA_DIR: dataDir() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("usage: depot token:create");
  });

  test("--version and --help", async () => {
    const version = await depot(["--version"]);
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const help = await depot(["--help"]);
    for (const command of [
      "serve",
      "worker",
      "migrate",
      "user:create",
      "token:create",
      "api-key:create",
      "healthcheck",
    ]) {
      expect(help.stdout).toContain(`depot ${command === "serve" ? "[serve]" : command}`);
    }
  });
});
