import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { exampleOf, namesTheServerOnce, SDK_BLOCKS } from "../scripts/check-sdk-docs.ts";

// scripts/check-sdk-docs.ts builds and runs docs/integrators.md's client-library quick starts in CI
// (scripts/check-sdks.sh); these tests hold its reading of the page.
describe("the client libraries' quick starts in docs/integrators.md", () => {
  const page = readFileSync(join(import.meta.dir, "../docs/integrators.md"), "utf8");

  test("one quick start per language, each naming the server once (the one thing the check changes)", () => {
    expect(SDK_BLOCKS).toEqual(["sdk-js", "sdk-python", "sdk-go", "sdk-java", "sdk-rust"]);
    for (const name of SDK_BLOCKS) {
      const example = exampleOf(page, name);
      expect(namesTheServerOnce(example)).toBe(true);
      // A pinned key set, and the three outcomes: a result, unverifiable, unreachable.
      expect(example).toContain("depot-keys.json");
      expect(example).toContain("not depot's answer");
      expect(example).toContain("depot unreachable");
      expect(example).toContain("not licensed");
    }
  });

  test("the quick starts come before the wire protocol", () => {
    expect(page.indexOf("## Client libraries")).toBeLessThan(page.indexOf("## Verifying answers"));
    expect(page.indexOf("<!-- checked: sdk-rust -->")).toBeLessThan(
      page.indexOf("## What your software sends"),
    );
  });

  test("a marker with no code block right after it is an error naming the marker", () => {
    expect(() => exampleOf("<!-- checked: sdk-go -->\nprose\n", "sdk-go")).toThrow(
      "docs/integrators.md has no code block marked <!-- checked: sdk-go -->",
    );
  });
});
