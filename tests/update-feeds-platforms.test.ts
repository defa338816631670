import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createLicense } from "../src/features/licenses/service.ts";
import { createLogger } from "../src/log.ts";
import { bearer, json, readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { createProduct, createUser, tokenFor } from "./helpers/factories.ts";
import { unusedPort } from "./helpers/ports.ts";
import { license } from "./helpers/releases.ts";

/**
 * A file published without a platform (the dashboard's form, a multipart POST without `platform`) gets
 * the platform and arch its name says, by the table `depot publish` uses; and whatever platform a file
 * was stored under, no feed offers it where its kind cannot run (README, "Platforms and file names").
 */

let t: TestApp;
let base: string;
let token: string;
let ownerId: number;
const ANY_KEY = { id: 0, creatorId: null };

beforeAll(async () => {
  const port = unusedPort();
  t = await startTestApp({
    env: { APP_URL: `http://127.0.0.1:${port}` },
    log: createLogger("error"),
    jobs: "send",
  });
  base = t.listen(port);
  const owner = await createUser(t.ctx, { role: "vendor" });
  ownerId = owner.id;
  token = await tokenFor(t.ctx, owner);
}, 60_000);

afterAll(() => t.close());

/** A product, and the key of a license its feeds answer. */
async function productWithHolder(name: string) {
  const owner = { id: ownerId } as Parameters<typeof createProduct>[1];
  const product = await createProduct(t.ctx, owner, { name });
  const holder = await createUser(t.ctx);
  const { key } = await createLicense(t.ctx, ANY_KEY, {
    ownerId: String(holder.id),
    creatorId: String(ownerId),
    productId: String(product.id),
  });
  return { id: product.id, key };
}

/** Publishes `version` with one file, sent as the dashboard's form sends it: no platform, no arch. */
async function publishBare(
  productId: number,
  version: string,
  fileName: string,
  extra: Record<string, string> = {},
) {
  const form = new FormData();
  form.append("file", new File([new Uint8Array(64).fill(7)], fileName, { type: "application/octet-stream" }));
  form.append("version_name", version);
  form.append("title", `Release ${version}`);
  form.append("changelog", "Changes.");
  for (const [name, value] of Object.entries(extra)) form.append(name, value);
  const response = await fetch(`${base}/api/products/${productId}/versions`, {
    method: "POST",
    headers: bearer(token),
    body: form,
  });
  const body = await readJson(response);
  expect({ status: response.status, body }).toMatchObject({ status: 201 });
  return body.data;
}

const feed = (productId: number, key: string, path: string) =>
  fetch(`${base}/updates/${productId}/${path}`, { headers: license(key) });

describe("a Windows installer published without a platform", () => {
  let product: { id: number; key: string };
  let version: { artifacts: Array<Record<string, unknown>> };

  beforeAll(async () => {
    product = await productWithHolder("Acme Notes");
    version = await publishBare(product.id, "1.4.0", "Acme Notes Setup 1.4.0.exe");
  });

  test("is stored for windows, and the answer says depot read it from the name", () => {
    expect(version.artifacts).toHaveLength(1);
    expect(version.artifacts[0]).toMatchObject({
      file_name: "Acme Notes Setup 1.4.0.exe",
      platform: "windows",
      arch: "any",
      platform_inferred: true,
      arch_inferred: true,
      platform_neutral: false,
    });
  });

  test("latest.yml offers it; latest-mac.yml and latest-linux.yml do not", async () => {
    const windows = await feed(product.id, product.key, "electron/latest.yml");
    expect(windows.status).toBe(200);
    expect(await windows.text()).toContain("/files/1.4.0/Acme%20Notes%20Setup%201.4.0.exe");
    for (const name of ["latest-mac.yml", "latest-linux.yml", "latest-linux-arm64.yml"]) {
      const other = await feed(product.id, product.key, `electron/${name}`);
      expect({ name, status: other.status }).toEqual({ name, status: 404 });
    }
  });

  test("Tauri and Squirrel.Mac on macOS and Linux are told there is no update", async () => {
    for (const path of [
      "tauri/darwin/aarch64/1.0.0",
      "tauri/linux/x86_64/1.0.0",
      "squirrel/darwin/x64/1.0.0",
    ]) {
      const response = await feed(product.id, product.key, path);
      expect({ path, status: response.status }).toEqual({ path, status: 204 });
    }
    const windows = await feed(product.id, product.key, "tauri/windows/x86_64/1.0.0");
    expect(windows.status).toBe(200);
    expect((await readJson(windows)).version).toBe("1.4.0");
  });
});

describe("a file whose kind runs on one platform, stored under another or under any", () => {
  let product: { id: number; key: string };

  beforeAll(async () => {
    product = await productWithHolder("Acme Stored Any");
    await publishBare(product.id, "2.0.0", "Acme Setup 2.0.0.exe", { platform: "any", arch: "any" });
    await publishBare(product.id, "2.1.0", "Acme-2.1.0.dmg", { platform: "linux" });
  });

  test("the platform sent is kept, and the answer says it was not inferred", async () => {
    const response = await fetch(`${base}/api/products/${product.id}/versions`, { headers: bearer(token) });
    const { data } = await readJson(response);
    const files = data.flatMap((v: { artifacts: unknown[] }) => v.artifacts);
    expect(files).toContainEqual(
      expect.objectContaining({
        file_name: "Acme Setup 2.0.0.exe",
        platform: "any",
        platform_inferred: false,
      }),
    );
    expect(files).toContainEqual(
      expect.objectContaining({ file_name: "Acme-2.1.0.dmg", platform: "linux", platform_inferred: false }),
    );
  });

  test("is offered on its own platform only", async () => {
    expect((await feed(product.id, product.key, "electron/latest-mac.yml")).status).toBe(404);
    expect((await feed(product.id, product.key, "electron/latest-linux.yml")).status).toBe(404);
    const windows = await feed(product.id, product.key, "electron/latest.yml");
    expect(windows.status).toBe(200);
    expect(await windows.text()).toContain(`version: "2.0.0"`);
    expect((await feed(product.id, product.key, "tauri/darwin/aarch64/1.0.0")).status).toBe(204);
  });
});

describe("a platform-neutral file", () => {
  test("stays any, says it is neutral, and every platform's feed offers it", async () => {
    const product = await productWithHolder("Acme Plugin");
    const version = await publishBare(product.id, "3.0.0", "acme-plugin-3.0.0.jar");
    expect(version.artifacts[0]).toMatchObject({
      platform: "any",
      arch: "any",
      platform_inferred: true,
      platform_neutral: true,
    });
    for (const name of ["latest.yml", "latest-mac.yml", "latest-linux.yml"]) {
      const response = await feed(product.id, product.key, `electron/${name}`);
      expect({ name, status: response.status }).toEqual({ name, status: 200 });
    }
  });
});

describe("a file added to a version as JSON without a platform", () => {
  test("gets the platform and arch of its name", async () => {
    const product = await productWithHolder("Acme Json");
    const version = await publishBare(product.id, "4.0.0", "acme-plugin-4.0.0.jar");
    const response = await fetch(
      `${base}/api/products/${product.id}/versions/${version.id}/artifacts`,
      json(
        {
          file: {
            filename: "acme_4.0.0_arm64.deb",
            content: Buffer.from("a package").toString("base64"),
          },
        },
        { method: "POST", token },
      ),
    );
    const body = await readJson(response);
    expect({ status: response.status, data: body.data }).toMatchObject({
      status: 201,
      data: { platform: "linux", arch: "aarch64", platform_inferred: true, arch_inferred: true },
    });
  });
});
