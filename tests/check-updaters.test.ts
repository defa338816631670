import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { SDK_BLOCKS } from "../scripts/check-sdk-docs.ts";
import { CHECKED_BLOCKS, checkedBlock } from "../scripts/check-updaters.ts";

// scripts/check-updaters.ts runs docs/integrators.md's updater configurations against the binary in
// CI; these tests hold its reading of the page, so a marker moved or dropped fails here first.
describe("the updater blocks of docs/integrators.md", () => {
  const page = readFileSync(join(import.meta.dir, "../docs/integrators.md"), "utf8");

  test("each block the checks read is marked once, and every marker is one the checks read", () => {
    // The client libraries' quick starts come first (scripts/check-sdk-docs.ts), then the updaters'.
    const markers = [...page.matchAll(/<!-- checked: ([a-z-]+) -->/g)].map((match) => match[1]);
    expect(markers).toEqual([...SDK_BLOCKS, ...CHECKED_BLOCKS]);
  });

  test("a marker gives the code block right after it, without its fences", () => {
    expect(checkedBlock(page, "electron-builder")).toBe(
      [
        "publish:",
        "  provider: generic",
        "  url: https://depot.example.com/updates/1/electron     # 1: the product's id",
      ].join("\n"),
    );
    expect(JSON.parse(checkedBlock(page, "tauri-conf")).plugins.updater.endpoints).toEqual([
      "https://depot.example.com/updates/1/tauri/{{target}}/{{arch}}/{{current_version}}",
    ]);
  });

  test("a marker with no code block right after it is an error naming the marker", () => {
    expect(() => checkedBlock("<!-- checked: tauri-conf -->\nprose\n", "tauri-conf")).toThrow(
      "docs/integrators.md has no code block marked <!-- checked: tauri-conf -->",
    );
  });
});
