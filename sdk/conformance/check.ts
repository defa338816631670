/**
 * Holds every client library to the same behaviour (sdk/README.md, "The conformance suite"): starts
 * a seeded depot (start-depot.ts) and scripts/fake-depot.ts in each forging mode, runs
 * `sdk/conformance/run.sh LANG …` for every language whose driver exists, checks each run's one JSON
 * line and exit code, and prints a table of language × case:
 *
 *   bun sdk/conformance/check.ts [--binary dist/depot-linux-x64 | --fixture FILE] [--lang js,python,go,java,rust]
 *
 * --fixture uses a depot start-depot.ts already started (its --out FILE; scripts/check-sdks.sh shares
 * one with every library's tests); otherwise one is started here, from --binary or from source.
 *
 * Against depot: a valid key (exit 0), another product's key (1, PRODUCT_MISMATCH), the machine
 * license with --fingerprint fp-x (0 and `machine`), --current-version 1.0.0 on linux x86_64
 * (`upgrade.version` 1.1.0) and 1.1.0 (null), and a server nobody listens on (3). Against each fake
 * mode: validate, with --fingerprint (activate first) and with --current-version, each exit 2.
 * Languages run side by side, each its cases in turn. Exit 1 when any case fails.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");
const RUN = join(ROOT, "sdk/conformance/run.sh");
/** The languages run.sh knows; one counts when its driver's folder, sdk/conformance/<lang>/, exists. */
const LANGUAGES = ["js", "python", "go", "java", "rust"];
const FAKE_MODES = ["unsigned", "forged", "unknown-kid", "replayed", "swapped", "tampered", "self-keyed"];
/** The first run of a language builds its driver (Rust's crates: minutes on a busy machine). */
const FIRST_RUN_TIMEOUT_MS = 15 * 60_000;
const RUN_TIMEOUT_MS = 120_000;

const args = process.argv.slice(2);
const option = (name: string) => {
  const at = args.indexOf(name);
  return at === -1 ? undefined : args[at + 1];
};
const binary = option("--binary");
const fixtureFile = option("--fixture");
const asked = option("--lang")?.split(",").filter(Boolean);
const languages = (asked ?? LANGUAGES).filter((lang) => {
  if (!LANGUAGES.includes(lang))
    throw new Error(`check.ts: unknown language "${lang}" (${LANGUAGES.join(", ")})`);
  const present = existsSync(join(ROOT, "sdk/conformance", lang));
  if (!present && asked) throw new Error(`check.ts: no driver for ${lang} (sdk/conformance/${lang}/)`);
  return present;
});
if (languages.length === 0) throw new Error("check.ts: no language has a driver in sdk/conformance/");

interface Fixture {
  server: string;
  jwks: string;
  productId: string;
  key: string;
  machineKey: string;
  otherKey: string;
}

type Line = Record<string, unknown>;
interface Case {
  name: string;
  /** run.sh's arguments after the language. */
  argv: (fixture: Fixture) => string[];
  exit: number;
  /** What is wrong with the line, or null. */
  check: (line: Line) => string | null;
}

// run.sh and the services run `bun` (and the JS driver's tools) from the repository's node_modules.
process.env.PATH = `${join(ROOT, "node_modules/.bin")}:${process.env.PATH ?? ""}`;
const children: ChildProcess[] = [];
const stopAll = () => {
  for (const child of children) child.kill("SIGTERM");
};
process.on("exit", stopAll);
process.on("SIGINT", () => process.exit(130));
process.on("SIGTERM", () => process.exit(143));

/** Starts `argv` and resolves with the first stdout line that `ready` accepts. */
function startService(argv: string[], ready: (line: string) => boolean, what: string): Promise<string> {
  const child = spawn(argv[0] as string, argv.slice(1), { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
  children.push(child);
  return new Promise((done, failed) => {
    let buffered = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      buffered += chunk.toString("utf8");
      for (const line of buffered.split("\n")) if (ready(line)) done(line);
    });
    child.on("exit", (code) => failed(new Error(`${what} exited (${code}) before it was ready`)));
  });
}

function freePort(): Promise<number> {
  return new Promise((done, failed) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => (typeof address === "object" && address ? done(address.port) : failed()));
    });
  });
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runDriver(lang: string, argv: string[], timeoutMs: number): Promise<Run> {
  return new Promise((done) => {
    const child = spawn("bash", [RUN, lang, ...argv], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const timer = setTimeout(() => {
      stderr += `\n(check.ts: no exit within ${timeoutMs / 1000} s: killed)`;
      child.kill("SIGKILL");
    }, timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

/** What is wrong with a run, or null: its exit code, and its stdout being one JSON line that passes. */
function judge(run: Run, expected: Case): string | null {
  const lines = run.stdout.split("\n").filter((l) => l.trim() !== "");
  if (run.code !== expected.exit) return `exit ${run.code}, expected ${expected.exit}`;
  if (lines.length !== 1) return `${lines.length} lines on stdout, expected one JSON line`;
  let line: Line;
  try {
    line = JSON.parse(lines[0] as string);
  } catch {
    return `stdout is not JSON: ${lines[0]}`;
  }
  return expected.check(line);
}

const expect = (line: Line, wanted: Line): string | null => {
  for (const [field, value] of Object.entries(wanted)) {
    if (JSON.stringify(line[field]) !== JSON.stringify(value)) {
      return `"${field}" is ${JSON.stringify(line[field])}, expected ${JSON.stringify(value)}`;
    }
  }
  return null;
};
const base = (f: Fixture, key = f.key, server = f.server) => [
  "--server",
  server,
  "--jwks",
  f.jwks,
  "--product",
  f.productId,
  "--key",
  key,
];
const update = (version: string) => ["--current-version", version, "--platform", "linux", "--arch", "x86_64"];
const unverifiable = (line: Line) =>
  expect(line, { verified: false, error: "unverifiable" }) ??
  (typeof line.reason === "string" ? null : "no reason given");

// --- start depot and the fakes --------------------------------------------------------------------

const started = Date.now();
console.log(
  `check.ts: languages ${languages.join(", ")}; ${
    fixtureFile ? `the depot of ${fixtureFile}` : `starting depot${binary ? ` (${binary})` : " from source"}`
  }`,
);
const fixture = JSON.parse(
  fixtureFile
    ? readFileSync(fixtureFile, "utf8")
    : await startService(
        ["bun", "sdk/conformance/start-depot.ts", ...(binary ? ["--binary", binary] : [])],
        (line) => line.startsWith("{"),
        "start-depot.ts",
      ),
) as Fixture;
console.log(`check.ts: depot at ${fixture.server} (${Math.round((Date.now() - started) / 1000)} s)`);
const nobody = `http://127.0.0.1:${await freePort()}`;
const fakes: Record<string, string> = {};
await Promise.all(
  FAKE_MODES.map(async (mode) => {
    const port = await freePort();
    // swapped relays with the attacker's own license: one of the same product, so depot says VALID.
    const key = mode === "swapped" ? fixture.machineKey : fixture.key;
    await startService(
      ["bun", "scripts/fake-depot.ts", mode, fixture.server, key, String(port)],
      (line) => line === "listening",
      `fake-depot ${mode}`,
    );
    fakes[mode] = `http://127.0.0.1:${port}`;
  }),
);

// --- the cases --------------------------------------------------------------------------------------

const cases: { column: string; runs: Case[] }[] = [
  {
    column: "valid",
    runs: [
      {
        name: "valid",
        argv: (f) => base(f),
        exit: 0,
        check: (l) => expect(l, { valid: true, code: "VALID", verified: true }),
      },
    ],
  },
  {
    column: "mismatch",
    runs: [
      {
        name: "another product's key",
        argv: (f) => base(f, f.otherKey),
        exit: 1,
        check: (l) => expect(l, { valid: false, code: "PRODUCT_MISMATCH", verified: true }),
      },
    ],
  },
  {
    column: "machine",
    runs: [
      {
        name: "machine license, --fingerprint fp-x",
        argv: (f) => [...base(f, f.machineKey), "--fingerprint", "fp-x"],
        exit: 0,
        check: (l) =>
          expect(l, { valid: true, code: "VALID", verified: true }) ??
          (typeof (l.machine as Line | undefined)?.id === "string" ? null : "no machine.id"),
      },
    ],
  },
  {
    column: "upgrade",
    runs: [
      {
        name: "1.0.0 on linux x86_64",
        argv: (f) => [...base(f), ...update("1.0.0")],
        exit: 0,
        check: (l) => expect(l, { valid: true, verified: true, upgrade: { version: "1.1.0" } }),
      },
      {
        name: "1.1.0 on linux x86_64",
        argv: (f) => [...base(f), ...update("1.1.0")],
        exit: 0,
        check: (l) => expect(l, { valid: true, verified: true, upgrade: { version: null } }),
      },
    ],
  },
  {
    column: "unreachable",
    runs: [
      {
        name: "nobody listening",
        argv: (f) => base(f, f.key, nobody),
        exit: 3,
        check: (l) =>
          expect(l, { verified: false, error: "unreachable" }) ??
          (typeof l.reason === "string" ? null : "no reason given"),
      },
    ],
  },
  ...FAKE_MODES.map((mode) => ({
    column: mode,
    runs: [
      {
        name: `fake ${mode}: validate`,
        argv: (f: Fixture) => base(f, f.key, fakes[mode]),
        exit: 2,
        check: unverifiable,
      },
      {
        name: `fake ${mode}: --fingerprint`,
        argv: (f: Fixture) => [...base(f, f.key, fakes[mode]), "--fingerprint", "fp-fake"],
        exit: 2,
        check: unverifiable,
      },
      {
        name: `fake ${mode}: --current-version`,
        argv: (f: Fixture) => [...base(f, f.key, fakes[mode]), ...update("1.0.0")],
        exit: 2,
        check: unverifiable,
      },
    ],
  })),
];

// --- run: languages side by side, each its cases in turn -------------------------------------------

const results = new Map<string, Map<string, boolean>>();
const failures: string[] = [];
await Promise.all(
  languages.map(async (lang) => {
    const row = new Map<string, boolean>();
    results.set(lang, row);
    let first = true;
    for (const { column, runs } of cases) {
      let passed = true;
      for (const one of runs) {
        const argv = one.argv(fixture);
        const run = await runDriver(lang, argv, first ? FIRST_RUN_TIMEOUT_MS : RUN_TIMEOUT_MS);
        first = false;
        const wrong = judge(run, one);
        if (wrong !== null) {
          passed = false;
          failures.push(
            [
              `${lang} × ${one.name}: ${wrong}`,
              `  run.sh ${lang} ${argv.join(" ")}`,
              `  stdout: ${run.stdout.trim() || "(none)"}`,
              `  stderr: ${run.stderr.trim().split("\n").slice(-8).join("\n          ") || "(none)"}`,
            ].join("\n"),
          );
        }
      }
      row.set(column, passed);
      console.log(`check.ts: ${lang} ${column}: ${passed ? "pass" : "FAIL"}`);
    }
  }),
);
stopAll();

// --- the table ---------------------------------------------------------------------------------------

const columns = cases.map((c) => c.column);
const width = Math.max(8, ...languages.map((l) => l.length));
const cell = (text: string, column: string) => text.padEnd(Math.max(column.length, 4));
console.log();
console.log([" ".repeat(width), ...columns.map((c) => cell(c, c))].join("  "));
for (const lang of languages) {
  const row = results.get(lang);
  console.log([lang.padEnd(width), ...columns.map((c) => cell(row?.get(c) ? "pass" : "FAIL", c))].join("  "));
}
console.log();
if (failures.length > 0) {
  console.log(failures.join("\n\n"));
  console.log(
    `\ncheck.ts: ${failures.length} run(s) failed (${Math.round((Date.now() - started) / 1000)} s)`,
  );
  process.exit(1);
}
console.log(
  `check.ts: every case passed for ${languages.join(", ")} (${Math.round((Date.now() - started) / 1000)} s)`,
);
process.exit(0);
