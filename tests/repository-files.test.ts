import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { loadConfig } from "../src/config.ts";

// Files the README promises exist, and say what they claim: links, docker-compose.yml, .gitignore.
const ROOT = join(import.meta.dir, "..");
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");

/** The markdown files a reader is sent to: the README and everything under docs/ and examples/. */
const markdownFiles = () =>
  ["README.md", "docs/**/*.md", "examples/**/*.md"].flatMap((pattern) => [
    ...new Bun.Glob(pattern).scanSync({ cwd: ROOT }),
  ]);

describe("links", () => {
  test.each(markdownFiles())("every relative link in %s names a file of the repository", (file) => {
    const targets = [...read(file).matchAll(/\]\(([^)\s]+)\)/g)]
      .map((match) => match[1] ?? "")
      .filter((target) => !/^[a-z]+:/i.test(target) && !target.startsWith("#"))
      .map((target) => join(dirname(file), decodeURIComponent(target.split("#")[0] ?? "")));
    expect(targets.filter((path) => !existsSync(join(ROOT, path)))).toEqual([]);
  });

  test.each(markdownFiles())("every #section a link in %s names is a heading of its file", (file) => {
    const broken = [...read(file).matchAll(/\]\(([^)\s]*)#([^)\s]+)\)/g)].flatMap(([link, path, anchor]) => {
      const target = path ? join(dirname(file), decodeURIComponent(path)) : file;
      if (!target.endsWith(".md")) return [];
      return anchorsOf(read(target)).has(anchor ?? "") ? [] : [link];
    });
    expect(broken).toEqual([]);
  });
});

/**
 * docs/ARCHITECTURE.md is the map an engineer opens first: every file it names must be where it says.
 * In the "Where things are" table a bare name (`service.ts`) is in a directory the row named before it
 * (`src/features/versions/service.ts`, `upload.ts`), or at the top of the repository (`drizzle/`).
 */
describe("docs/ARCHITECTURE.md's map", () => {
  const map = read("docs/ARCHITECTURE.md");
  /** A backticked name that is a path: a directory (`x/`) or a file with an extension, no placeholder. */
  const isPath = (name: string) =>
    !name.startsWith("/") &&
    !name.includes("<") &&
    !name.includes(" ") &&
    (name.endsWith("/") || /\.(ts|tsx|sh|md|json|ya?ml|css|sql)$/.test(name));
  const exists = (path: string) => existsSync(join(ROOT, path));
  const rows = map
    .slice(map.indexOf("## Where things are"))
    .split("\n")
    .filter((line) => line.startsWith("| ") && !line.startsWith("| You are looking for"));

  test("the table has its rows", () => {
    expect(rows.length).toBeGreaterThan(30);
  });

  test.each(rows.map((row) => [row.split(" | ")[0]?.slice(2) ?? row, row]))(
    "%s: every file it names exists",
    (_, row) => {
      const places: string[] = [];
      const missing: string[] = [];
      for (const [, name = ""] of row.matchAll(/`([^`]+)`/g)) {
        if (!isPath(name)) continue;
        const found = ["", ...places].map((place) => join(place, name)).find(exists);
        if (found === undefined) missing.push(name);
        else places.unshift(found.endsWith("/") || !/\.\w+$/.test(found) ? found : dirname(found));
      }
      expect(missing).toEqual([]);
    },
  );

  test("every src/… path it names, in the table or around it, exists", () => {
    const paths = [...map.matchAll(/`(src\/[^`\s<]+)`/g)].map(([, path = ""]) => path);
    expect(paths.length).toBeGreaterThan(30);
    expect(paths.filter((path) => !exists(path))).toEqual([]);
  });

  test("the prose's paths under src/ (`http/csrf.ts`) exist", () => {
    const prose = map.slice(0, map.indexOf("## Where things are"));
    const paths = [
      ...prose.matchAll(/`((?:http|features|db|storage|validation|jobs|cli|backup|control)\/[^`\s<]*)`/g),
    ].map(([, path = ""]) => path);
    expect(paths.filter((path) => !exists(join("src", path)))).toEqual([]);
  });

  test("each function it names in a file (`registerIp` in `src/…/validate.ts`) is declared there", () => {
    const named = [...map.matchAll(/`(\w+)` in `(src\/[^`]+\.tsx?)`/g)];
    expect(named.length).toBeGreaterThan(2);
    const absent = named
      .filter(([, name = "", path = ""]) => !new RegExp(`(function|const|class) ${name}\\b`).test(read(path)))
      .map(([, name, path]) => `${name} in ${path}`);
    expect(absent).toEqual([]);
  });
});

/** The anchors GitHub gives a markdown file's headings (outside code blocks). */
function anchorsOf(markdown: string): Set<string> {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, "");
  return new Set(
    [...prose.matchAll(/^#{1,6} (.+)$/gm)].map(([, heading]) =>
      (heading ?? "")
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}_\- ]/gu, "")
        .replaceAll(" ", "-"),
    ),
  );
}

describe("docker-compose.yml", () => {
  const compose = Bun.YAML.parse(read("docker-compose.yml")) as {
    services: Record<string, { environment?: Record<string, string>; command?: string[] }>;
  };
  /** `${NAME:?message}` as compose fills it in, from `values`. */
  const filledIn = (environment: Record<string, string>, values: Record<string, string>) =>
    Object.fromEntries(
      Object.entries(environment).map(([name, value]) => [
        name,
        value.replace(/\$\{(\w+)(?::\?[^}]*)?\}/g, (_, variable: string) => values[variable] ?? ""),
      ]),
    );
  const secrets = {
    APP_KEY: "a-compose-test-key-that-is-long-enough-0123456789",
    S3_SECRET_ACCESS_KEY: "s3cret",
  };

  test("the HTTP instances and the worker run the same configuration: serve --no-workers and worker", () => {
    const { depot, worker } = compose.services;
    expect(depot?.command).toEqual(["serve", "--no-workers"]);
    expect(worker?.command).toEqual(["worker"]);
    expect(worker?.environment).toEqual(depot?.environment);
  });

  test("depot reads every variable it sets: each one changes the configuration", () => {
    const environment = filledIn(compose.services.depot?.environment ?? {}, secrets);
    const config = loadConfig(environment);
    expect(config).toMatchObject({
      databaseUrl: "postgres://depot:depot@postgres:5432/depot",
      appUrl: "https://depot.example.com",
      appKey: secrets.APP_KEY,
      trustProxy: true,
    });
    const unread = Object.keys(environment).filter((name) => {
      const without = { ...environment };
      delete without[name];
      try {
        return JSON.stringify(loadConfig(without)) === JSON.stringify(config);
      } catch {
        return false; // refused without it: it is read
      }
    });
    expect(unread).toEqual([]);
  });
});

test(".gitignore keeps what depot and its demo write out of a commit: demo.json (passwords, tokens), data/, dist/", () => {
  for (const path of ["demo.json", "data/app.key", "dist/depot"]) {
    const check = Bun.spawnSync(["git", "check-ignore", "--quiet", "--no-index", path], { cwd: ROOT });
    expect({ path, ignored: check.exitCode === 0 }).toEqual({ path, ignored: true });
  }
});

// A signature proves depot wrote an answer, not that it is about the reader's license: a relaying
// server can pair the reader's nonce with its own valid key. The steps must say to compare them.
test("the docs' verification steps compare the answer's license.key and productId with the request's", () => {
  const steps = markdownFiles()
    .map(read)
    .filter((text) => text.includes("Signature-Input") && text.includes("nonce"));
  expect(steps.length).toBeGreaterThan(0);
  const says = (text: string) =>
    /`license\.key` must be the key you\s+sent/.test(text) && /`license\.productId` must be it/.test(text);
  expect(steps.some(says)).toBe(true);
});
