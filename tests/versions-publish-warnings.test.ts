import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLicense } from "../src/features/licenses/service.ts";
import { bearer, json, readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { depot, jsonOf, stderrLines } from "./helpers/cli.ts";
import { createProduct, createUser, tokenFor } from "./helpers/factories.ts";
import { license } from "./helpers/releases.ts";

/**
 * A version whose name is not semver is kept (listed, downloadable) but no update feed ever offers
 * it: the publish says so (docs/vendors.md, "Release files per platform"), in the API's answer
 * (`warnings.version_name`) and in `depot publish`'s stderr and `--json`.
 */

let t: TestApp;
let base: string;
let token: string;
let product: { id: number };
let holderKey: string;
const dir = mkdtempSync(join(tmpdir(), "depot-warnings-"));
const NOT_SEMVER = (name: string) =>
  `${name} is not a semantic version (like 1.2.0 or 2.0.0-beta.1): it can be listed and downloaded, but no update feed will ever offer it.`;

beforeAll(async () => {
  t = await startTestApp({ jobs: "send" });
  base = t.listen();
  const vendor = await createUser(t.ctx, { role: "vendor" });
  token = await tokenFor(t.ctx, vendor);
  product = await createProduct(t.ctx, vendor);
  const holder = await createUser(t.ctx);
  holderKey = (
    await createLicense(
      t.ctx,
      { id: 0, creatorId: null },
      { ownerId: String(holder.id), creatorId: String(vendor.id), productId: String(product.id) },
    )
  ).key;
}, 60_000);

afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

const publishJson = (name: string, fileName: string) =>
  fetch(
    `${base}/api/products/${product.id}/versions`,
    json(
      {
        version_name: name,
        title: `Release ${name}`,
        changelog: "Changes.",
        file: { filename: fileName, content: Buffer.from(`bytes of ${name}`).toString("base64") },
      },
      { method: "POST", token },
    ),
  );

describe("the API's publish answer", () => {
  test("a name that is not semver: 201, the version, and warnings.version_name", async () => {
    const response = await publishJson("1.2", "Acme Setup 1.2.exe");
    expect(response.status).toBe(201);
    const body = await readJson(response);
    expect(body.data.version_number).toBe("1.2");
    expect(body.warnings).toEqual({ version_name: [NOT_SEMVER("1.2")] });
    // Kept, and never offered: the feed has nothing.
    expect(
      (await fetch(`${base}/updates/${product.id}/electron/latest.yml`, { headers: license(holderKey) }))
        .status,
    ).toBe(404);
    // An identical re-post (200) says it again.
    const again = await publishJson("1.2", "Acme Setup 1.2.exe");
    expect(again.status).toBe(200);
    expect((await readJson(again)).warnings).toEqual({ version_name: [NOT_SEMVER("1.2")] });
  });

  test("a semver name (a leading v too): no warnings key at all", async () => {
    for (const name of ["1.3.0", "v1.4.0-beta.1"]) {
      const response = await publishJson(name, `Acme Setup ${name}.exe`);
      expect(response.status).toBe(201);
      const body = await readJson(response);
      expect(Object.keys(body).sort()).toEqual(["data"]);
    }
    const feed = await fetch(`${base}/updates/${product.id}/electron/latest.yml`, {
      headers: license(holderKey),
    });
    expect(feed.status).toBe(200);
  });

  test("a multipart publish warns the same way", async () => {
    const form = new FormData();
    form.append("file", new File([new Uint8Array([1, 2, 3])], "plugin.jar"));
    form.append("version_name", "2024-spring");
    form.append("title", "Spring");
    form.append("changelog", "Changes.");
    const response = await fetch(`${base}/api/products/${product.id}/versions`, {
      method: "POST",
      headers: bearer(token),
      body: form,
    });
    expect(response.status).toBe(201);
    expect((await readJson(response)).warnings).toEqual({ version_name: [NOT_SEMVER("2024-spring")] });
  });
});

describe("depot publish", () => {
  const publish = (name: string, file: string, ...extra: string[]) =>
    depot(
      [
        "publish",
        file,
        "--product",
        String(product.id),
        "--version",
        name,
        "--title",
        "T",
        "--changelog",
        "- c",
        ...extra,
      ],
      { DEPOT_URL: base, DEPOT_TOKEN: token },
    );

  test("prints the warning on stderr, keeps stdout to its one line, and exits 0", async () => {
    const path = join(dir, "tool-1.5.zip");
    writeFileSync(path, "a tool");
    const result = await publish("1.5", path);
    expect(result.code).toBe(0);
    expect(result.stdout).toStartWith("published version 1.5 ");
    expect(result.stdout.trim().split("\n")).toHaveLength(1);
    expect(stderrLines(result)).toContain(`warning: ${NOT_SEMVER("1.5")}`);
  });

  test("--json carries the warnings; a semver name has none", async () => {
    const path = join(dir, "tool-1.6.zip");
    writeFileSync(path, "another tool");
    const warned = jsonOf(await publish("1.6", path, "--json"));
    expect(warned.warnings).toEqual([NOT_SEMVER("1.6")]);
    const other = join(dir, "tool-1.7.0.zip");
    writeFileSync(other, "a third tool");
    const clean = await publish("1.7.0", other, "--json");
    expect(clean.stderr).not.toContain("warning:");
    expect(jsonOf(clean)).not.toHaveProperty("warnings");
  });
});
