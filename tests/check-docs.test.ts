import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  commandsOf,
  matches,
  STARTS_ITS_OWN_SERVER,
  shellBlocksOf,
  startsItsOwnServer,
} from "../scripts/check-docs.ts";

// The docs' runnable examples are checked by scripts/check-docs.ts against the binary in CI; these
// tests hold its reading of a page and its matching of output to what it must be.
describe("a page's console blocks", () => {
  const page = [
    "```sh",
    "$ not run: another language",
    "```",
    "```console",
    "$ echo one \\",
    "  two",
    "one two",
    "$ false",
    "[exit 1]",
    "```",
  ].join("\n");

  test("are its commands (a trailing backslash goes on), each with the output that follows it", () => {
    expect(commandsOf(page)).toEqual([
      { line: 5, text: "echo one \\\n  two", expected: ["one two"] },
      { line: 8, text: "false", expected: ["[exit 1]"] },
    ]);
  });
});

describe("a page's shell blocks", () => {
  test("are marked when they cannot run, on the line above the fence", () => {
    const page = [
      "```sh",
      "echo unmarked",
      "```",
      "<!-- not run: it needs a real CI system -->",
      "```bash",
      "echo marked",
      "```",
      "```console",
      "$ echo run",
      "run",
      "```",
      "```yaml",
      "not: shell",
      "```",
      "- a list item with a block under it:",
      "",
      "  ```sh",
      "  echo indented",
      "  ```",
    ].join("\n");
    expect(shellBlocksOf(page)).toEqual([
      { line: 1, marked: false },
      { line: 5, marked: true },
      { line: 17, marked: false },
    ]);
  });
});

describe("a page that starts depot serve itself", () => {
  test("says so on a line of its own; a mention in the text is not that line", () => {
    expect(startsItsOwnServer(`# Page\n\n${STARTS_ITS_OWN_SERVER}\n\n\`\`\`console\n$ true\n\`\`\``)).toBe(
      true,
    );
    expect(startsItsOwnServer(`It says \`${STARTS_ITS_OWN_SERVER}\` in its text.`)).toBe(false);
    expect(startsItsOwnServer("```console\n$ depot serve &\n```")).toBe(false);
  });

  test("docs/stripe.md does, and runs from an empty directory to a key in an e-mail", () => {
    const page = readFileSync(join(import.meta.dir, "..", "docs", "stripe.md"), "utf8");
    expect(startsItsOwnServer(page)).toBe(true);
    const commands = commandsOf(page).map((command) => command.text);
    expect(commands[0]).toBe("mkdir shop && cd shop");
    expect(
      commands.some((text) => text.includes("STRIPE_WEBHOOK_SECRET=") && text.includes("depot serve")),
    ).toBe(true);
    expect(commands.some((text) => text.includes("/api/integrations/stripe/webhook"))).toBe(true);
    expect(commands.some((text) => text.includes("mail/new"))).toBe(true);
  });
});

describe("output against what the page says", () => {
  test("is line by line, … standing for any text within a line", () => {
    expect(matches(['{"id":…,"name":"Ada"}'], ['{"id":1,"name":"Ada"}'])).toBe(true);
    expect(matches(['{"id":…,"name":"Ada"}'], ['{"id":1,"name":"Bob"}'])).toBe(false);
    expect(matches(["a.c"], ["abc"])).toBe(false);
  });

  test("where a line that is only … stands for any number of lines, none included", () => {
    expect(matches(["first", "…", "last"], ["first", "last"])).toBe(true);
    expect(matches(["first", "…", "last"], ["first", "x", "y", "last"])).toBe(true);
    expect(matches(["first", "…", "last"], ["first", "x"])).toBe(false);
  });

  test("and every printed line must be accounted for", () => {
    expect(matches(["one"], ["one", "two"])).toBe(false);
    expect(matches([], [])).toBe(true);
  });
});

test("the README is the front door: under 200 lines, and it has runnable examples", () => {
  const readme = readFileSync(join(import.meta.dir, "..", "README.md"), "utf8");
  expect(readme.split("\n").length).toBeLessThan(200);
  expect(commandsOf(readme).length).toBeGreaterThan(5);
});

test("docs/vendors.md runs top to bottom: every shell block runs, or says why it cannot", () => {
  const page = readFileSync(join(import.meta.dir, "..", "docs", "vendors.md"), "utf8");
  const lines = page.split("\n");
  const sectionOf = (line: number) => lines.slice(0, line).findLast((text) => /^#{2,3} /.test(text));
  const unmarked = shellBlocksOf(page)
    .filter((block) => !block.marked)
    .map((block) => sectionOf(block.line));
  expect([...new Set(unmarked)]).toEqual([]);
  expect(commandsOf(page).length).toBeGreaterThan(150);
});
