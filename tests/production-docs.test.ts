import { afterAll, describe, expect, test } from "bun:test";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config.ts";

/**
 * docs/production.md's configuration files, checked by the tools that read them: a unit systemd
 * would warn about, a Caddyfile or nginx site that does not load, or a logrotate file with an error
 * fails here. Each block follows a `<!-- checked: NAME -->` line. The tools come from Debian
 * (systemd, caddy, nginx, logrotate: .ci/run installs them).
 */

const page = readFileSync(join(import.meta.dir, "../docs/production.md"), "utf8");
const work = mkdtempSync(join(tmpdir(), "depot-production-docs-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function block(name: string): string {
  const match = new RegExp(`<!-- checked: ${name} -->\\n\`\`\`[a-z]*\\n([\\s\\S]*?)\\n\`\`\``).exec(page);
  if (!match?.[1]) throw new Error(`docs/production.md has no block checked as ${name}`);
  return `${match[1]}\n`;
}

const has = (tool: string) => spawnSync("sh", ["-c", `command -v ${tool}`]).status === 0;

function run(command: string, args: string[]) {
  const result = spawnSync(command, args, { encoding: "utf8", timeout: 30_000 });
  return { code: result.status, output: `${result.stdout}${result.stderr}` };
}

test("the environment file is a configuration depot accepts", () => {
  const env = Object.fromEntries(
    block("production-env")
      .split("\n")
      .filter((line) => line.trim() !== "" && !line.startsWith("#"))
      .map((line) => line.split(/=(.*)/s).slice(0, 2) as [string, string]),
  );
  const config = loadConfig(env, false);
  expect(config).toMatchObject({
    appUrl: "https://depot.example.com",
    host: "127.0.0.1",
    port: 8080,
    trustProxy: true,
    dataDir: "/var/lib/depot",
    maxUploadBytes: 2 * 1024 ** 3,
  });
});

describe.if(has("systemd-analyze"))("systemd", () => {
  // verify wants ExecStart's program to exist; any executable stands in for the installed depot.
  const unit = (name: string, text: string) => {
    const path = join(work, name);
    writeFileSync(path, text.replaceAll("/usr/local/bin/depot", process.execPath));
    return path;
  };

  test("the depot unit verifies without a warning", () => {
    const result = run("systemd-analyze", ["verify", unit("depot.service", block("systemd-unit"))]);
    expect(result).toEqual({ code: 0, output: "" });
  });

  test("the backup service and its timer verify without a warning", () => {
    unit("depot-backup.service", block("backup-service"));
    const result = run("systemd-analyze", ["verify", unit("depot-backup.timer", block("backup-timer"))]);
    expect(result).toEqual({ code: 0, output: "" });
  });

  test("a misspelt setting is caught (the check is real)", () => {
    const broken = block("systemd-unit").replace("ProtectSystem=", "ProtectSystm=");
    const result = run("systemd-analyze", ["verify", unit("broken.service", broken)]);
    expect(result.output).toContain("Unknown key");
  });
});

describe.if(has("caddy"))("Caddy", () => {
  test("the Caddyfile loads, with no warning", () => {
    const path = join(work, "Caddyfile");
    writeFileSync(path, block("caddyfile"));
    const result = run("caddy", ["validate", "--config", path, "--adapter", "caddyfile"]);
    expect(result.output).toContain("Valid configuration");
    expect(result.code).toBe(0);
    expect(result.output).not.toContain('"level":"warn"');
  });
});

describe.if(has("nginx") && has("openssl"))("nginx", () => {
  test("the site loads (nginx -t) with a certificate where certbot puts one", () => {
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ed25519",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=depot.example.com",
        "-keyout",
        join(work, "privkey.pem"),
        "-out",
        join(work, "fullchain.pem"),
      ],
      { stdio: "ignore" },
    );
    const site = block("nginx").replaceAll("/etc/letsencrypt/live/depot.example.com", work);
    writeFileSync(join(work, "site.conf"), site);
    writeFileSync(
      join(work, "nginx.conf"),
      `pid ${work}/nginx.pid;\nerror_log ${work}/error.log;\nevents {}\nhttp { include ${work}/site.conf; }\n`,
    );
    const result = run("nginx", ["-t", "-p", work, "-c", join(work, "nginx.conf")]);
    expect(result.output).toContain("test is successful");
    expect(result.code).toBe(0);
  });
});

describe.if(has("logrotate"))("logrotate", () => {
  test("the rotation file reads without an error", () => {
    const path = join(work, "logrotate.conf");
    writeFileSync(path, block("logrotate").replace("/var/log/depot/depot.log", join(work, "depot.log")));
    writeFileSync(join(work, "depot.log"), "{}\n");
    const result = run("logrotate", ["--debug", "--force", "--state", join(work, "logrotate.state"), path]);
    expect(result.code).toBe(0);
    expect(result.output).not.toMatch(/error/i);
    expect(result.output).toContain("truncating");
  });
});
