import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bearer, readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { randomBytes, sha256 } from "./helpers/bytes.ts";
import { depot, jsonOf } from "./helpers/cli.ts";
import { createProduct, createUser, tokenFor } from "./helpers/factories.ts";

/**
 * A version's release state from the command line (README, The CLI): `depot release --rollout
 * --critical`, `depot rollout VERSION N [--at TIME]`, `depot yank --reason`, `depot unyank`, `depot
 * publish --critical`, and the line `depot publish` prints for files added to a version, against a
 * real listening depot. Each is what the versions API then says, and again changes nothing.
 */

// Each test spawns several CLI processes; on a loaded machine each takes seconds.
setDefaultTimeout(180_000);

const t: TestApp = await startTestApp({ jobs: "send" });
const base = t.listen();
const vendor = await createUser(t.ctx, { role: "vendor" });
const token = await tokenFor(t.ctx, vendor);
const product = await createProduct(t.ctx, vendor);
const dir = mkdtempSync(join(tmpdir(), "depot-release-state-"));
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

function fileOf(name: string, bytes: Uint8Array | string): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

const cli = (args: string[]) => depot(args, { DEPOT_URL: base, DEPOT_TOKEN: token, DEPOT_RETRIES: "1" });
const productArgs = ["--product", String(product.id)];

async function publish(name: string, ...more: string[]) {
  return cli([
    "publish",
    fileOf(`app-${name}.jar`, `bytes of ${name}`),
    ...productArgs,
    "--version",
    name,
    "--title",
    "T",
    "--changelog",
    "c",
    ...more,
  ]);
}

async function versionNamed(name: string) {
  const response = await fetch(`${base}/api/products/${product.id}/versions?per_page=100`, {
    headers: bearer(token),
  });
  const page = await readJson(response);
  return page.data.find((version: { version_number: string }) => version.version_number === name);
}

describe("depot release --rollout --critical", () => {
  test("releases the draft to N% of machines, marked critical; again is success", async () => {
    expect((await publish("1.0.0", "--draft")).code).toBe(0);
    const result = await cli(["release", "1.0.0", ...productArgs, "--rollout", "25", "--critical"]);
    expect(result.code).toBe(0);
    const version = await versionNamed("1.0.0");
    expect(version).toMatchObject({ status: "published", rollout_percentage: 25, critical: true });
    expect(result.stdout).toBe(
      `released version 1.0.0 (id ${version.id}, 1 file, channel stable, rollout 25%, critical)\n`,
    );
    const again = await cli(["release", "1.0.0", ...productArgs, "--rollout", "25"]);
    expect(again.stdout).toStartWith("already released: version 1.0.0");
    expect(await versionNamed("1.0.0")).toMatchObject({ status: "published", rollout_percentage: 25 });
  });

  test("a percentage that is not 0 to 100 is exit 2 before any request", async () => {
    const bads = ["101", "-1", "ten", "2.5"];
    const results = await Promise.all(
      bads.map((bad) => cli(["release", "1.0.0", ...productArgs, `--rollout=${bad}`])),
    );
    for (const [i, result] of results.entries()) {
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`--rollout must be a whole number from 0 to 100, got "${bads[i]}"`);
    }
  });
});

describe("depot rollout VERSION N [--at TIME]", () => {
  test("now: sets the percentage and drops the schedule; --at adds a step in time order", async () => {
    expect((await publish("2.0.0")).code).toBe(0);
    const later = jsonOf(
      await cli(["rollout", "2.0.0", "50", ...productArgs, "--at", "2030-01-02T10:00+01:00", "--json"]),
    );
    expect(later.status).toBe("scheduled");
    const earlier = jsonOf(
      await cli(["rollout", "2.0.0", "20", ...productArgs, "--at", "2030-01-01T09:00Z", "--json"]),
    );
    expect(earlier.version.rollout_schedule).toEqual([
      { at: "2030-01-01T09:00:00.000Z", percentage: 20 },
      { at: "2030-01-02T09:00:00.000Z", percentage: 50 },
    ]);
    // The same time again replaces its step.
    const replaced = jsonOf(
      await cli(["rollout", "2.0.0", "30", ...productArgs, "--at", "2030-01-01T09:00:00Z", "--json"]),
    );
    expect(replaced.version.rollout_schedule).toEqual([
      { at: "2030-01-01T09:00:00.000Z", percentage: 30 },
      { at: "2030-01-02T09:00:00.000Z", percentage: 50 },
    ]);

    const now = await cli(["rollout", "2.0.0", "10", ...productArgs]);
    const version = await versionNamed("2.0.0");
    expect(now.stdout).toBe(
      `version 2.0.0 (id ${version.id}, published, rollout 10%): offered to 10% of machines\n`,
    );
    expect(version).toMatchObject({ rollout_percentage: 10, rollout_schedule: null });
  });

  test("usage: N missing or out of range, a time without its zone, an extra argument (exit 2)", async () => {
    const cases: [string[], string][] = [
      [["rollout", "2.0.0"], "N (the percentage, 0 to 100) is required"],
      [["rollout"], "VERSION is required"],
      [["rollout", "2.0.0", "200"], 'N must be a whole number from 0 to 100, got "200"'],
      [["rollout", "2.0.0", "5", "--at", "2030-01-01 09:00"], "--at must be an ISO 8601 time with its zone"],
      [["rollout", "2.0.0", "5", "6"], 'unexpected argument "6"'],
    ];
    const results = await Promise.all(cases.map(([args]) => cli([...args, ...productArgs])));
    for (const [i, [, message]] of cases.entries()) {
      const result = results[i] ?? { code: -1, stderr: "" };
      expect({ code: result.code, message: result.stderr.includes(message) }).toEqual({
        code: 2,
        message: true,
      });
    }
  });
});

describe("depot yank / unyank", () => {
  test("yank says why; again is success; unyank publishes it again; unyank again is success", async () => {
    expect((await publish("3.0.0")).code).toBe(0);
    const yanked = await cli(["yank", "3.0.0", ...productArgs, "--reason", "corrupts settings"]);
    expect(yanked.code).toBe(0);
    const version = await versionNamed("3.0.0");
    expect(version).toMatchObject({ status: "yanked", yank_reason: "corrupts settings" });
    expect(yanked.stdout).toBe(
      `yanked version 3.0.0 (id ${version.id}, yanked, rollout 100%): corrupts settings\n`,
    );
    const again = jsonOf(await cli(["yank", "3.0.0", ...productArgs, "--reason", "loses data", "--json"]));
    expect(again).toMatchObject({ status: "already-yanked", version: { yank_reason: "loses data" } });

    const unyanked = jsonOf(await cli(["unyank", "3.0.0", ...productArgs, "--json"]));
    expect(unyanked).toMatchObject({
      status: "unyanked",
      version: { status: "published", yank_reason: null, published_at: version.published_at },
    });
    const twice = await cli(["unyank", "3.0.0", ...productArgs]);
    expect(twice.stdout).toStartWith("not yanked: version 3.0.0");
  });

  test("--reason is required (exit 2); a draft is neither yanked nor unyanked (exit 1)", async () => {
    const noReason = await cli(["yank", "3.0.0", ...productArgs]);
    expect(noReason.code).toBe(2);
    expect(noReason.stderr).toContain("--reason is required");

    expect((await publish("4.0.0", "--draft")).code).toBe(0);
    const yankDraft = await cli(["yank", "4.0.0", ...productArgs, "--reason", "r"]);
    expect(yankDraft.code).toBe(1);
    expect(yankDraft.stderr).toContain("A draft version cannot become yanked.");
    const unyankDraft = await cli(["unyank", "4.0.0", ...productArgs]);
    expect(unyankDraft.code).toBe(1);
    expect(unyankDraft.stderr).toContain(
      "version 4.0.0 is a draft, not yanked: release it with depot release",
    );
    expect(await versionNamed("4.0.0")).toMatchObject({ status: "draft" });
  });
});

describe("depot publish", () => {
  test("--critical marks the version critical", async () => {
    const out = jsonOf(await publish("5.0.0", "--critical", "--json"));
    expect(out.version).toMatchObject({ status: "published", critical: true });
    expect((await versionNamed("5.0.0")).critical).toBe(true);
  });

  test("the added line names each added file's own size and sha256, not the version's first file's", async () => {
    const first = randomBytes(1000);
    const mac = randomBytes(2000);
    const linux = randomBytes(3000);
    const args = [...productArgs, "--version", "6.0.0", "--title", "T", "--changelog", "c", "--draft"];
    expect((await cli(["publish", fileOf("App-6.0.0-x64.exe", first), ...args])).code).toBe(0);
    const added = await cli([
      "publish",
      fileOf("App-6.0.0-arm64.dmg", mac),
      fileOf("app-6.0.0-x86_64.AppImage", linux),
      ...args,
    ]);
    expect(added.code).toBe(0);
    const version = await versionNamed("6.0.0");
    expect(added.stdout).toMatch(
      new RegExp(
        `^added App-6\\.0\\.0-arm64\\.dmg \\(2000 bytes, sha256 ${sha256(mac)}\\), ` +
          `app-6\\.0\\.0-x86_64\\.AppImage \\(3000 bytes, sha256 ${sha256(linux)}\\) ` +
          `to version 6\\.0\\.0 \\(id ${version.id}\\) in \\d+\\.\\ds\\n$`,
      ),
    );
  });
});

describe("depot versions", () => {
  test("shows each version's channel, status, rollout and release time (- for a draft)", async () => {
    const table = await cli(["versions", ...productArgs]);
    expect(table.code).toBe(0);
    const rows = table.stdout
      .trimEnd()
      .split("\n")
      .map((row) => row.split(/ {2,}/));
    const header = rows[0] ?? [];
    const row = (name: string) => {
      const cells = rows.find((cells) => cells[1] === name) ?? [];
      return Object.fromEntries(header.map((column, i) => [column, cells[i]]));
    };
    const released = await versionNamed("1.0.0");
    expect(row("1.0.0")).toMatchObject({
      CHANNEL: "stable",
      STATUS: "published critical",
      ROLLOUT: "25%",
      RELEASED: released.published_at.replace(/\.\d+Z$/, "Z"),
    });
    expect(row("4.0.0")).toMatchObject({ STATUS: "draft", RELEASED: "-" });
    expect(row("2.0.0")).toMatchObject({ STATUS: "published", ROLLOUT: "10%" });
  });
});
