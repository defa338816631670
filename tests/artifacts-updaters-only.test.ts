import { afterAll, beforeAll, expect, test } from "bun:test";
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
