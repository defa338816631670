import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createLicense } from "../src/features/licenses/service.ts";
import { bearer, readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { createProduct, createUser, tokenFor } from "./helpers/factories.ts";
import { unusedPort } from "./helpers/ports.ts";
import { license } from "./helpers/releases.ts";

/**
 * A file for updaters only (electron's `-mac.zip`, Tauri's `.app.tar.gz`, a `.nupkg`) is offered by
 * the feeds but left out of what people are handed: the version's `file_name` and `download_url`, its
 * download (which the e-mails and notifications link to) and the dashboard's "Download for …" links.
 * The name decides unless `updaters_only` is sent (docs/vendors.md, "Files for updaters only").
 */

let t: TestApp;
let base: string;
let token: string;
let product: { id: number };
let holderKey: string;

beforeAll(async () => {
  const port = unusedPort();
  t = await startTestApp({ env: { APP_URL: `http://127.0.0.1:${port}` }, jobs: "send" });
  base = t.listen(port);
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

afterAll(() => t.close());

function form(fileName: string, bytes: string, fields: Record<string, string> = {}) {
  const body = new FormData();
  body.append("file", new File([bytes], fileName));
  for (const [name, value] of Object.entries(fields)) body.append(name, value);
  return body;
}

const post = async (path: string, body: FormData) => {
  const response = await fetch(`${base}/api/products/${product.id}${path}`, {
    method: "POST",
    headers: bearer(token),
    body,
  });
  const answer = await readJson(response);
  expect({ status: response.status, answer }).toMatchObject({ status: 201 });
  return answer.data;
};

test("a -mac.zip published first is the updater's; the version and its download are the .dmg", async () => {
  const version = await post(
    "/versions",
    form("Acme-1.0.0-mac.zip", "the updater's zip", {
      version_name: "1.0.0",
      title: "Acme",
      changelog: "First.",
    }),
  );
  expect(version.artifacts[0]).toMatchObject({ file_name: "Acme-1.0.0-mac.zip", updaters_only: true });
  const dmg = await post(`/versions/${version.id}/artifacts`, form("Acme-1.0.0.dmg", "the disk image"));
  expect(dmg).toMatchObject({ platform: "darwin", updaters_only: false });

  const read = await readJson(
    await fetch(`${base}/api/products/${product.id}/versions/${version.id}`, { headers: bearer(token) }),
  );
  expect(read.data).toMatchObject({ file_name: "Acme-1.0.0.dmg", file_size: "the disk image".length });
  expect(
    read.data.artifacts.map((a: { file_name: string; updaters_only: boolean }) => [
      a.file_name,
      a.updaters_only,
    ]),
  ).toEqual([
    ["Acme-1.0.0-mac.zip", true],
    ["Acme-1.0.0.dmg", false],
  ]);

  // The version's download (the e-mails' and notifications' link) hands a person the disk image.
  const download = await fetch(read.data.download_url, { headers: bearer(token) });
  expect(download.status).toBe(200);
  expect(await download.text()).toBe("the disk image");

  // The updater is still offered its zip.
  const feed = await fetch(`${base}/updates/${product.id}/electron/latest-mac.yml`, {
    headers: license(holderKey),
  });
  expect(feed.status).toBe(200);
  expect(await feed.text()).toContain("Acme-1.0.0-mac.zip");
});

test("updaters_only overrides the name either way; a bad value is a 422 on the field", async () => {
  const version = await post(
    "/versions",
    form("Acme Setup 2.0.0.exe", "installer", {
      version_name: "2.0.0",
      title: "Acme",
      changelog: "Second.",
      updaters_only: "true",
    }),
  );
  expect(version.artifacts[0]).toMatchObject({ updaters_only: true });
  const nupkg = await post(
    `/versions/${version.id}/artifacts`,
    form("acme-2.0.0-full.nupkg", "package", { updaters_only: "false" }),
  );
  expect(nupkg.updaters_only).toBe(false);
  const refused = await fetch(`${base}/api/products/${product.id}/versions/${version.id}/artifacts`, {
    method: "POST",
    headers: bearer(token),
    body: form("acme.tar.gz", "x", { updaters_only: "maybe" }),
  });
  expect(refused.status).toBe(422);
  expect(Object.keys((await readJson(refused)).errors)).toEqual(["updaters_only"]);
});

describe("PATCH …/artifacts/{artifact} {updaters_only}: the mark corrected after the upload", () => {
  const patch = (path: string, body: unknown, auth = token) =>
    fetch(`${base}/api/products/${product.id}${path}`, {
      method: "PATCH",
      headers: { ...bearer(auth), "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const readVersion = async (id: number) =>
    (
      await readJson(
        await fetch(`${base}/api/products/${product.id}/versions/${id}`, { headers: bearer(token) }),
      )
    ).data;

  test("marked for updaters, the file leaves the version's download; unmarked, it is back", async () => {
    const version = await post(
      "/versions",
      form("Tool-3.0.0.AppImage", "appimage bytes", {
        version_name: "3.0.0",
        title: "Tool",
        changelog: "3.",
      }),
    );
    const deb = await post(`/versions/${version.id}/artifacts`, form("tool_3.0.0_amd64.deb", "deb bytes"));
    const appImage = version.artifacts[0];
    expect(appImage.updaters_only).toBe(false);
    expect((await readVersion(version.id)).file_name).toBe("Tool-3.0.0.AppImage");

    const response = await patch(`/versions/${version.id}/artifacts/${appImage.id}`, { updaters_only: true });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toStartWith("application/json");
    const { data } = await readJson(response);
    expect(data).toMatchObject({
      id: appImage.id,
      version_id: version.id,
      file_name: "Tool-3.0.0.AppImage",
      updaters_only: true,
      sha256: appImage.sha256,
    });
    const read = await readVersion(version.id);
    expect(read.file_name).toBe(deb.file_name);
    expect(await (await fetch(read.download_url, { headers: bearer(token) })).text()).toBe("deb bytes");

    const back = await patch(`/versions/${version.id}/artifacts/${appImage.id}`, { updaters_only: false });
    expect((await readJson(back)).data.updaters_only).toBe(false);
    expect((await readVersion(version.id)).file_name).toBe("Tool-3.0.0.AppImage");
  });

  test("a bad body is a 422 per field; another version's file, or none, a 404; nothing changes", async () => {
    const one = await post(
      "/versions",
      form("One-4.0.0.exe", "one", { version_name: "4.0.0", title: "One", changelog: "4." }),
    );
    const two = await post(
      "/versions",
      form("Two-5.0.0.exe", "two", { version_name: "5.0.0", title: "Two", changelog: "5." }),
    );
    const path = `/versions/${one.id}/artifacts/${one.artifacts[0].id}`;
    const refusals: [unknown, Record<string, string[]>][] = [
      [{}, { updaters_only: ["The updaters only field is required."] }],
      [{ updaters_only: "yes" }, { updaters_only: ["The updaters only field must be true or false."] }],
      [{ updaters_only: true, platform: "linux" }, { platform: ["The platform field is prohibited."] }],
    ];
    for (const [body, errors] of refusals) {
      const refused = await patch(path, body);
      expect(refused.status).toBe(422);
      expect(refused.headers.get("content-type")).toStartWith("application/json");
      expect((await readJson(refused)).errors).toEqual(errors);
    }
    const missing = await patch(`/versions/${one.id}/artifacts/999999`, { updaters_only: true });
    expect(missing.status).toBe(404);
    expect(await readJson(missing)).toEqual({ message: "Artifact not found." });
    const elsewhere = await patch(`/versions/${two.id}/artifacts/${one.artifacts[0].id}`, {
      updaters_only: true,
    });
    expect(elsewhere.status).toBe(404);
    expect((await readVersion(one.id)).artifacts[0].updaters_only).toBe(false);
  });

  test("a customer, or a vendor of another product, may not; anonymous is 401", async () => {
    const version = await post(
      "/versions",
      form("Mine-6.0.0.exe", "mine", { version_name: "6.0.0", title: "M", changelog: "6." }),
    );
    const path = `/versions/${version.id}/artifacts/${version.artifacts[0].id}`;
    const other = await tokenFor(t.ctx, await createUser(t.ctx, { role: "vendor" }));
    expect([403, 404]).toContain((await patch(path, { updaters_only: true }, other)).status);
    const anonymous = await fetch(`${base}/api/products/${product.id}${path}`, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ updaters_only: true }),
    });
    expect(anonymous.status).toBe(401);
    expect((await readVersion(version.id)).artifacts[0].updaters_only).toBe(false);
  });
});
