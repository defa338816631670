// Runs the client libraries' quick starts of docs/integrators.md ("Client libraries") as a reader
// would, so they cannot drift from the libraries:
//
//   bun scripts/check-sdk-docs.ts [--fixture FILE | --binary dist/depot] [--lang js,python,go,java,rust]
//
// Each example is the code block right after `<!-- checked: sdk-LANG -->`. It is written to a
// folder of its own (sdk/conformance/.build/docs/LANG, which git ignores) with the key set beside
// it as depot-keys.json, its server `"https://licenses.example.com"` read from DEPOT_SERVER instead
// (the one change made to it), built against the library in this repository (Rust without its `tls`
// feature: the server here is http://), and run four times with LICENSE_KEY set:
//
//   depot, a valid key            → "licensed"
//   depot, another product's key  → "not licensed: PRODUCT_MISMATCH"
//   scripts/fake-depot.ts forged  → "not depot's answer: …"
//   a port nobody listens on      → "depot unreachable: …"
//
// The depot is the seeded one of sdk/conformance/start-depot.ts: a running one's file (--fixture, or
// DEPOT_FIXTURE), else one started here (from --binary, else from source). The libraries must be
// built (scripts/check-sdks.sh runs each test.sh first); JS's dist/ and Java's classes are built here
// when missing. Exit 1 when any run prints or exits otherwise.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");
const DOC = join(ROOT, "docs/integrators.md");
const BUILD = join(ROOT, "sdk/conformance/.build/docs");
const SERVER_LITERAL = '"https://licenses.example.com"';

interface Fixture {
  server: string;
  jwks: string;
  productId: string;
  key: string;
  otherKey: string;
}

/** How each language's example is set up, built and run, and how it reads DEPOT_SERVER. */
interface Language {
  /** The expression that takes the place of the server's literal. */
  server: string;
  /** Writes the example (and what builds it) into `dir`; returns the command that runs it. */
  prepare(dir: string, code: string, jwks: string): Promise<string[]>;
}

const args = process.argv.slice(2);
const option = (name: string) => {
  const at = args.indexOf(name);
  return at === -1 ? undefined : args[at + 1];
};

/** Runs a command to its end; throws with its output when it fails. */
function run(argv: string[], cwd: string, env: Record<string, string | undefined> = {}): Promise<string> {
  return new Promise((done, failed) => {
    const child = spawn(argv[0] as string, argv.slice(1), {
      cwd,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
    });
    child.on("close", (code) =>
      code === 0 ? done(output) : failed(new Error(`${argv.join(" ")} (exit ${code}):\n${output}`)),
    );
  });
}

const LANGUAGES: Record<string, Language> = {
  js: {
    server: "(process.env.DEPOT_SERVER as string)",
    async prepare(dir, code, jwks) {
      const library = join(ROOT, "sdk/js");
      if (!existsSync(join(library, "dist/index.js"))) await run(["tsc", "-p", "tsconfig.json"], library);
      mkdirSync(join(dir, "node_modules"), { recursive: true });
      symlinkSync(library, join(dir, "node_modules/depot-client"));
      writeFileSync(join(dir, "package.json"), '{"type":"module"}\n');
      writeFileSync(join(dir, "example.ts"), code);
      writeFileSync(join(dir, "depot-keys.json"), jwks);
      return ["bun", "example.ts"];
    },
  },
  python: {
    server: 'os.environ["DEPOT_SERVER"]',
    async prepare(dir, code, jwks) {
      writeFileSync(join(dir, "example.py"), code);
      writeFileSync(join(dir, "depot-keys.json"), jwks);
      return ["env", `PYTHONPATH=${join(ROOT, "sdk/python/src")}`, "python3", "example.py"];
    },
  },
  go: {
    server: 'os.Getenv("DEPOT_SERVER")',
    async prepare(dir, code, jwks) {
      writeFileSync(
        join(dir, "go.mod"),
        [
          "module example.com/check-license",
          "",
          "go 1.19",
          "",
          "require github.com/depothq/depot/sdk/go v0.1.0",
          "",
          `replace github.com/depothq/depot/sdk/go => ${join(ROOT, "sdk/go")}`,
          "",
        ].join("\n"),
      );
      writeFileSync(join(dir, "main.go"), code);
      writeFileSync(join(dir, "depot-keys.json"), jwks);
      await run(["go", "build", "-o", "check-license", "."], dir, { GOFLAGS: "-mod=mod", GOPROXY: "off" });
      return ["./check-license"];
    },
  },
  java: {
    server: 'System.getenv("DEPOT_SERVER")',
    async prepare(dir, code, jwks) {
      const classes = join(ROOT, "sdk/java/build/classes");
      if (!existsSync(classes)) await run(["bash", join(ROOT, "sdk/java/build.sh")], ROOT);
      const name = /public\s+(?:final\s+)?class\s+(\w+)/.exec(code)?.[1];
      if (!name) throw new Error("the Java example declares no public class");
      writeFileSync(join(dir, `${name}.java`), code);
      writeFileSync(join(dir, "depot-keys.json"), jwks);
      await run(["javac", "--release", "17", "-Werror", "-cp", classes, "-d", "out", `${name}.java`], dir);
      return ["java", "-cp", `${classes}:out`, name];
    },
  },
  rust: {
    server: 'std::env::var("DEPOT_SERVER").unwrap()',
    async prepare(dir, code, jwks) {
      // Under sdk/, so that cargo reads sdk/.cargo/config.toml (Debian's crates, offline); the
      // library's own target folder, so that what its test.sh built is built once.
      mkdirSync(join(dir, "src"), { recursive: true });
      writeFileSync(
        join(dir, "Cargo.toml"),
        [
          "[package]",
          'name = "check-license"',
          'version = "0.0.0"',
          'edition = "2021"',
          "publish = false",
          "",
          "[dependencies]",
          `depot-client = { path = "${join(ROOT, "sdk/rust")}" }`,
          "",
        ].join("\n"),
      );
      writeFileSync(join(dir, "src/main.rs"), code);
      writeFileSync(join(dir, "src/depot-keys.json"), jwks);
      const target = join(ROOT, "sdk/rust/target");
      await run(["cargo", "build", "--quiet", "--target-dir", target], dir);
      return [join(target, "debug/check-license")];
    },
  },
};

/** The markers of the quick starts in docs/integrators.md, in the page's order. */
export const SDK_BLOCKS = Object.keys(LANGUAGES).map((lang) => `sdk-${lang}`);

/** The code block right after `<!-- checked: NAME -->` in docs/integrators.md. */
export function exampleOf(markdown: string, name: string): string {
  const match = new RegExp(`<!-- checked: ${name} -->\\n\`\`\`[a-z]*\\n([\\s\\S]*?)\\n\`\`\`\\n`).exec(
    markdown,
  );
  if (!match?.[1]) throw new Error(`docs/integrators.md has no code block marked <!-- checked: ${name} -->`);
  return `${match[1]}\n`;
}

/** Whether an example names the server by its literal exactly once (the one change made to it). */
export function namesTheServerOnce(example: string): boolean {
  return example.split(SERVER_LITERAL).length === 2;
}

function freePort(): Promise<number> {
  return new Promise((done, failed) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => (typeof address === "object" && address ? done(address.port) : failed()));
    });
  });
}

const children: ChildProcess[] = [];
process.on("exit", () => {
  for (const child of children) child.kill("SIGTERM");
});
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

interface Case {
  name: string;
  server: (f: Fixture) => string;
  key: (f: Fixture) => string;
  /** What the one line printed must be (a string) or start with (a RegExp). */
  expect: string | RegExp;
}

async function main() {
  process.env.PATH = `${join(ROOT, "node_modules/.bin")}:${process.env.PATH ?? ""}`;
  const asked = option("--lang")?.split(",").filter(Boolean) ?? Object.keys(LANGUAGES);
  for (const lang of asked) if (!LANGUAGES[lang]) throw new Error(`unknown language "${lang}"`);
  const markdown = readFileSync(DOC, "utf8");
  const examples = Object.fromEntries(asked.map((lang) => [lang, exampleOf(markdown, `sdk-${lang}`)]));

  const fixtureFile = option("--fixture") ?? process.env.DEPOT_FIXTURE;
  const binary = option("--binary");
  const fixture = JSON.parse(
    fixtureFile
      ? readFileSync(fixtureFile, "utf8")
      : await startService(
          ["bun", "sdk/conformance/start-depot.ts", ...(binary ? ["--binary", binary] : [])],
          (line) => line.startsWith("{"),
          "start-depot.ts",
        ),
  ) as Fixture;
  if (fixture.productId !== "1")
    throw new Error(`the examples are for product 1, the fixture's is ${fixture.productId}`);
  const jwks = readFileSync(fixture.jwks, "utf8");
  const fakePort = await freePort();
  await startService(
    ["bun", "scripts/fake-depot.ts", "forged", fixture.server, fixture.key, String(fakePort)],
    (line) => line === "listening",
    "fake-depot forged",
  );
  const nobody = `http://127.0.0.1:${await freePort()}`;
  const cases: Case[] = [
    { name: "a valid key", server: (f) => f.server, key: (f) => f.key, expect: "licensed" },
    {
      name: "another product's key",
      server: (f) => f.server,
      key: (f) => f.otherKey,
      expect: "not licensed: PRODUCT_MISMATCH",
    },
    {
      name: "a forging server",
      server: () => `http://127.0.0.1:${fakePort}`,
      key: (f) => f.key,
      expect: /^not depot's answer: ./,
    },
    { name: "nobody listening", server: () => nobody, key: (f) => f.key, expect: /^depot unreachable: ./ },
  ];

  const failures: string[] = [];
  await Promise.all(
    asked.map(async (lang) => {
      const language = LANGUAGES[lang] as Language;
      const example = examples[lang] as string;
      const started = Date.now();
      if (!namesTheServerOnce(example)) {
        failures.push(`${lang}: the example must name the server ${SERVER_LITERAL} exactly once`);
        return;
      }
      const dir = join(BUILD, lang);
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      let command: string[];
      try {
        command = await language.prepare(dir, example.replace(SERVER_LITERAL, language.server), jwks);
      } catch (error) {
        failures.push(`${lang}: cannot build the example: ${(error as Error).message}`);
        return;
      }
      for (const one of cases) {
        const env = { DEPOT_SERVER: one.server(fixture), LICENSE_KEY: one.key(fixture) };
        let printed: string;
        try {
          printed = (await run(command, dir, env)).trim();
        } catch (error) {
          failures.push(`${lang} × ${one.name}: ${(error as Error).message}`);
          continue;
        }
        const ok = typeof one.expect === "string" ? printed === one.expect : one.expect.test(printed);
        if (!ok || printed.includes("\n")) {
          failures.push(`${lang} × ${one.name}: printed ${JSON.stringify(printed)}, expected ${one.expect}`);
        } else {
          console.log(`check-sdk-docs: ${lang} × ${one.name}: ${printed.slice(0, 100)}`);
        }
      }
      console.log(`check-sdk-docs: ${lang} done (${Math.round((Date.now() - started) / 1000)} s)`);
    }),
  );
  if (failures.length > 0) {
    console.log(`\n${failures.join("\n\n")}\n\ncheck-sdk-docs: ${failures.length} failed`);
    process.exit(1);
  }
  console.log(`check-sdk-docs: the quick starts of ${asked.join(", ")} run as documented`);
  process.exit(0);
}

if (import.meta.main) await main();
