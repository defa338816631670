// Releases for installed software, the vendor's side (README, "Releases: artifacts, channels, drafts,
// yanks"): the publish fields, a version's files (artifacts, blockmaps, signatures), drafts, and
// PATCH's transitions with their notifications, through a listening server and real job workers.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { eq, sql } from "drizzle-orm";
import { selectRows } from "../src/db/rows.ts";
import { artifacts, versionDownloads, versions } from "../src/db/schema/index.ts";
import { backfillSha512 } from "../src/features/artifacts/sha512-backfill.ts";
import { createLicense } from "../src/features/licenses/service.ts";
import { bearer, readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { createProduct, createUser, tokenFor } from "./helpers/factories.ts";
import { until } from "./helpers/inbox.ts";

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

let t: TestApp;
let base: string;
let owner: { id: number };
let ownerToken: string;
let adminToken: string;
let strangerToken: string;
let holder: { id: number };
let holderToken: string;
/** A holder who never downloads anything: never told of a yank. */
let idleHolderToken: string;
let product: { id: number };
const servers: ReturnType<typeof Bun.serve>[] = [];

beforeAll(async () => {
  // Real workers: releasing and yanking enqueue jobs whose fan-out the tests watch; webhooks go to loopback.
  t = await startTestApp({ jobs: "workers", env: { WEBHOOK_ALLOW_PRIVATE: "true" } });
  base = t.listen();
  owner = await createUser(t.ctx, { role: "vendor" });
  ownerToken = await tokenFor(t.ctx, owner);
  adminToken = await tokenFor(t.ctx, await createUser(t.ctx, { role: "admin" }));
  strangerToken = await tokenFor(t.ctx, await createUser(t.ctx, { role: "vendor" }));
  holder = await createUser(t.ctx);
  holderToken = await tokenFor(t.ctx, holder);
  const idle = await createUser(t.ctx);
  idleHolderToken = await tokenFor(t.ctx, idle);
  product = await createProduct(t.ctx, owner);
  for (const user of [holder, idle]) {
    await createLicense(
      t.ctx,
      { id: 0, creatorId: null },
      { ownerId: String(user.id), creatorId: String(owner.id), productId: String(product.id) },
    );
  }
}, 30_000);
afterAll(async () => {
  for (const server of servers) await server.stop(true);
  await t.close();
});

// --- helpers -------------------------------------------------------------------------------------

let serial = 0;
const nextName = () => `3.${++serial}.0`;
const sha256 = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");
const sha512 = (bytes: Uint8Array | string) => createHash("sha512").update(bytes).digest("base64");
const unique = (label: string) => new TextEncoder().encode(`${label} ${crypto.randomUUID()}`);

interface Sent {
  bytes: Uint8Array;
  name: string;
  type?: string;
}

function multipart(fields: Record<string, string>, file?: Sent): FormData {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  if (file) form.append("file", new File([file.bytes], file.name, { type: file.type ?? "" }));
  return form;
}

function send(method: string, path: string, token: string | undefined, body?: FormData | object) {
  const form = body instanceof FormData;
  return fetch(`${base}${path}`, {
    method,
    headers: {
      ...(token ? bearer(token) : {}),
      ...(body && !form ? { "content-type": "application/json" } : {}),
    },
    body: body === undefined ? undefined : form ? body : JSON.stringify(body),
  });
}

const versionsPath = () => `/api/products/${product.id}/versions`;
const artifactsPath = (versionId: number) => `${versionsPath()}/${versionId}/artifacts`;

/** Publishes a version (multipart) with `fields`; the answer must be 201. */
async function publish(
  fields: Record<string, string> = {},
  file: Sent = { bytes: unique("app"), name: "app.zip" },
) {
  const response = await send(
    "POST",
    versionsPath(),
    ownerToken,
    multipart({ version_name: nextName(), title: "A release", changelog: "Fixed.", ...fields }, file),
  );
  expect(response.status).toBe(201);
  return (await readJson(response)).data;
}

async function addFile(versionId: number, fields: Record<string, string>, file: Sent, token = ownerToken) {
  return send("POST", artifactsPath(versionId), token, multipart(fields, file));
}

const patch = (versionId: number, body: object, token = ownerToken) =>
  send("PATCH", `${versionsPath()}/${versionId}`, token, body);

/** Kept release files, relative to STORAGE_DIR. */
function keptFiles(): string[] {
  const root = t.ctx.config.storageDir;
  if (!existsSync(join(root, "products"))) return [];
  return [...new Bun.Glob("products/**/*").scanSync({ cwd: root })].toSorted();
}
const incoming = () => readdirSync(join(t.ctx.config.storageDir, ".incoming"));

async function expectRefused(response: Response, status: number, errors?: Record<string, string[]>) {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toContain("application/json");
  const body = await readJson(response);
  expect(typeof body.message).toBe("string");
  if (errors) expect(body.errors).toEqual(errors);
  return body;
}

async function notificationsOf(token: string) {
  const response = await send("GET", "/api/notifications", token);
  expect(response.status).toBe(200);
  // biome-ignore lint/suspicious/noExplicitAny: asserted field by field
  return (await readJson(response)).data as any[];
}

async function jobsFor(queue: string, versionId: number) {
  const rows = await selectRows<{ n: number }>(
    t.ctx.db,
    sql`SELECT count(*)::int AS n FROM pgboss.job WHERE name = ${queue} AND (data->>'version_id')::bigint = ${versionId}`,
  );
  return rows[0]?.n ?? 0;
}

// --- publishing with release fields --------------------------------------------------------------

describe("publishing: platform, arch, signature, channel, draft", () => {
  test("multipart: the fields land on the version and its first artifact", async () => {
    const file = { bytes: unique("mac build"), name: "App-1.0.dmg", type: "application/x-apple-diskimage" };
    const data = await publish(
      { platform: "darwin", arch: "aarch64", signature: "RWQf6LRCGA9i5…sig", channel: "beta" },
      file,
    );
    expect(data).toMatchObject({
      channel: "beta",
      status: "published",
      critical: false,
      rollout_percentage: 100,
      yank_reason: null,
      published_at: expect.stringMatching(ISO),
      file_name: "App-1.0.dmg",
      file_size: file.bytes.byteLength,
      sha256: sha256(file.bytes),
    });
    expect(data.artifacts).toEqual([
      {
        id: expect.any(Number),
        version_id: data.id,
        platform: "darwin",
        arch: "aarch64",
        platform_inferred: false,
        arch_inferred: false,
        platform_neutral: false,
        file_name: "App-1.0.dmg",
        updaters_only: false,
        file_size: file.bytes.byteLength,
        sha256: sha256(file.bytes),
        sha512: sha512(file.bytes),
        content_type: "application/x-apple-diskimage",
        signature: "RWQf6LRCGA9i5…sig",
        download_url: `http://depot.test${artifactsPath(data.id)}/${data.artifacts[0].id}/download`,
        created_at: expect.stringMatching(ISO),
      },
    ]);
    expect(data.download_url).toBe(`http://depot.test${versionsPath()}/${data.id}/download`);
  });

  test("the channel follows the name's pre-release tag unless one is sent", async () => {
    expect((await publish({ version_name: `9.${++serial}.0-rc.1` })).channel).toBe("rc");
    expect((await publish({ version_name: `9.${++serial}.0-beta.2` })).channel).toBe("beta");
    expect((await publish({ version_name: `9.${++serial}.0-beta.2`, channel: "dev" })).channel).toBe("dev");
  });

  test("JSON with draft: true makes a draft: no publication date, no notification job", async () => {
    const bytes = unique("draft");
    const response = await send("POST", versionsPath(), ownerToken, {
      version_name: nextName(),
      title: "Draft",
      changelog: "Soon.",
      draft: true,
      platform: "windows",
      arch: "x86_64",
      file: { filename: "Setup.exe", content: Buffer.from(bytes).toString("base64") },
    });
    expect(response.status).toBe(201);
    const { data } = await readJson(response);
    expect([data.status, data.published_at, data.artifacts[0].platform, data.artifacts[0].arch]).toEqual([
      "draft",
      null,
      "windows",
      "x86_64",
    ]);
    expect(await jobsFor("version.published", data.id)).toBe(0);
  });

  test.each([
    [{ platform: "beos" }, { platform: ["The selected platform is invalid."] }],
    [{ arch: "sparc" }, { arch: ["The selected arch is invalid."] }],
    [{ channel: "nightly" }, { channel: ["The selected channel is invalid."] }],
    [{ draft: "maybe" }, { draft: ["The draft field must be true or false."] }],
  ])("a bad %p → 422 naming the field; no version, no file", async (bad, errors) => {
    const before = keptFiles();
    const name = nextName();
    const response = await send(
      "POST",
      versionsPath(),
      ownerToken,
      multipart(
        { version_name: name, title: "t", changelog: "c", ...bad },
        { bytes: unique("x"), name: "x.zip" },
      ),
    );
    await expectRefused(response, 422, errors);
    expect(await t.ctx.db.select().from(versions).where(eq(versions.versionNumber, name))).toEqual([]);
    expect(keptFiles()).toEqual(before);
    expect(incoming()).toEqual([]);
  });
});

// --- drafts ----------------------------------------------------------------------------------------

describe("drafts are their publishers' alone", () => {
  let draft: { id: number; artifacts: { download_url: string }[] };
  beforeAll(async () => {
    draft = await publish({ draft: "1" });
  });

  test("not listed, read, downloaded or latest for a holder; listed and downloadable for the owner", async () => {
    const listed = async (token: string) =>
      (await readJson(await send("GET", versionsPath(), token))).data.map((v: { id: number }) => v.id);
    expect(await listed(holderToken)).not.toContain(draft.id);
    expect(await listed(ownerToken)).toContain(draft.id);
    await expectRefused(await send("GET", `${versionsPath()}/${draft.id}`, holderToken), 404);
    await expectRefused(await send("GET", `${versionsPath()}/${draft.id}/download`, holderToken), 404);
    const artifactUrl = new URL(draft.artifacts[0]?.download_url ?? "").pathname;
    await expectRefused(await send("GET", artifactUrl, holderToken), 404);
    expect((await send("GET", `${versionsPath()}/${draft.id}/download`, ownerToken)).status).toBe(200);
    const latest = await readJson(await send("GET", `${versionsPath()}/latest`, ownerToken));
    expect(latest.data.id).not.toBe(draft.id);
    expect(latest.data.status).toBe("published");
  });
});

// --- artifacts -------------------------------------------------------------------------------------

describe("POST …/versions/{v}/artifacts", () => {
  test("multipart: 201 with the artifact; the same file again → 200 with the same one", async () => {
    const version = await publish();
    const file = { bytes: unique("linux"), name: "App.AppImage" };
    const first = await addFile(version.id, { platform: "linux", arch: "x86_64" }, file);
    expect(first.status).toBe(201);
    const { data } = await readJson(first);
    expect(data).toEqual({
      id: expect.any(Number),
      version_id: version.id,
      platform: "linux",
      arch: "x86_64",
      platform_inferred: false,
      arch_inferred: false,
      platform_neutral: false,
      file_name: "App.AppImage",
      updaters_only: false,
      file_size: file.bytes.byteLength,
      sha256: sha256(file.bytes),
      sha512: sha512(file.bytes),
      content_type: "application/octet-stream",
      signature: null,
      download_url: `http://depot.test${artifactsPath(version.id)}/${data.id}/download`,
      created_at: expect.stringMatching(ISO),
    });
    const files = keptFiles();
    const again = await addFile(version.id, { platform: "linux", arch: "x86_64" }, file);
    expect(again.status).toBe(200);
    expect((await readJson(again)).data).toEqual(data);
    expect(keptFiles()).toEqual(files);
    // The version lists it after its first file, which SPEC's fields still describe.
    const read = (await readJson(await send("GET", `${versionsPath()}/${version.id}`, ownerToken))).data;
    expect(read.artifacts.map((a: { id: number }) => a.id)).toEqual([version.artifacts[0].id, data.id]);
    expect(read.file_name).toBe(version.file_name);
  });

  test("the same platform, arch and name with another file → 422, nothing kept", async () => {
    const version = await publish();
    expect(
      (
        await addFile(
          version.id,
          { platform: "windows", arch: "x86_64" },
          { bytes: unique("a"), name: "Setup.exe" },
        )
      ).status,
    ).toBe(201);
    const files = keptFiles();
    await expectRefused(
      await addFile(
        version.id,
        { platform: "windows", arch: "x86_64" },
        { bytes: unique("b"), name: "Setup.exe" },
      ),
      422,
      { file: ["This version already has a different Setup.exe for windows/x86_64."] },
    );
    expect(keptFiles()).toEqual(files);
    expect(incoming()).toEqual([]);
    // Another arch is another artifact.
    expect(
      (
        await addFile(
          version.id,
          { platform: "windows", arch: "i686" },
          { bytes: unique("c"), name: "Setup.exe" },
        )
      ).status,
    ).toBe(201);
  });

  test("JSON with a base64 file: 201, platform and arch default to any", async () => {
    const version = await publish();
    const bytes = unique("json");
    const response = await send("POST", artifactsPath(version.id), ownerToken, {
      file: {
        filename: "extra.tar.gz",
        content: Buffer.from(bytes).toString("base64"),
        content_type: "application/gzip",
      },
    });
    expect(response.status).toBe(201);
    const { data } = await readJson(response);
    expect([data.platform, data.arch, data.sha256, data.content_type]).toEqual([
      "any",
      "any",
      sha256(bytes),
      "application/gzip",
    ]);
  });

  test("JSON with a finished resumable upload's id: 201, the upload is taken", async () => {
    const version = await publish();
    const bytes = unique("tus");
    const created = await fetch(`${base}/api/uploads`, {
      method: "POST",
      headers: {
        ...bearer(ownerToken),
        "tus-resumable": "1.0.0",
        "upload-length": String(bytes.byteLength),
        "upload-metadata": `filename ${Buffer.from("App-arm64.dmg").toString("base64")}`,
      },
    });
    expect(created.status).toBe(201);
    const location = created.headers.get("location") ?? "";
    const patched = await fetch(new URL(location, base), {
      method: "PATCH",
      headers: {
        ...bearer(ownerToken),
        "tus-resumable": "1.0.0",
        "upload-offset": "0",
        "content-type": "application/offset+octet-stream",
      },
      body: bytes,
    });
    expect(patched.status).toBe(204);
    const uploadId = location.split("/").at(-1);
    const response = await send("POST", artifactsPath(version.id), ownerToken, {
      upload_id: uploadId,
      platform: "darwin",
      arch: "aarch64",
    });
    expect(response.status).toBe(201);
    const { data } = await readJson(response);
    expect([data.file_name, data.sha256, data.sha512, data.platform]).toEqual([
      "App-arm64.dmg",
      sha256(bytes),
      sha512(bytes),
      "darwin",
    ]);
    // The same upload for another platform: it is this artifact's now.
    await expectRefused(
      await send("POST", artifactsPath(version.id), ownerToken, { upload_id: uploadId, platform: "linux" }),
      422,
      { upload_id: ["The upload has already been published."] },
    );
  });

  test("X.sig and X.blockmap attach to X: its signature, its blockmap (kept beside it)", async () => {
    const version = await publish();
    const exe = { bytes: unique("nsis"), name: "App Setup 1.0.exe" };
    const added = await readJson(await addFile(version.id, { platform: "windows", arch: "x86_64" }, exe));
    const signature = "dW50cnVzdGVkIGNvbW1lbnQ6IHNpZ25hdHVyZSBmcm9tIHRhdXJpIHNlY3JldCBrZXkK";
    const files = keptFiles();
    const signed = await addFile(
      version.id,
      {},
      { bytes: new TextEncoder().encode(`${signature}\n`), name: `${exe.name}.sig` },
    );
    expect(signed.status).toBe(201);
    expect((await readJson(signed)).data).toEqual({ ...added.data, signature });
    // The signature file itself is not kept, nor listed.
    expect(keptFiles()).toEqual(files);
    const again = await addFile(
      version.id,
      {},
      { bytes: new TextEncoder().encode(signature), name: `${exe.name}.sig` },
    );
    expect(again.status).toBe(200);
    await expectRefused(
      await addFile(version.id, {}, { bytes: new TextEncoder().encode("another"), name: `${exe.name}.sig` }),
      422,
    );

    const blockmap = { bytes: unique("blockmap"), name: `${exe.name}.blockmap` };
    const mapped = await addFile(version.id, {}, blockmap);
    expect(mapped.status).toBe(201);
    expect((await readJson(mapped)).data.id).toBe(added.data.id);
    const [row] = await t.ctx.db.select().from(artifacts).where(eq(artifacts.id, added.data.id));
    expect([row?.blockmapSize, row?.blockmapSha256]).toEqual([
      blockmap.bytes.byteLength,
      sha256(blockmap.bytes),
    ]);
    expect(keptFiles()).toContain(row?.blockmapStorageKey ?? "none");
    expect((await addFile(version.id, {}, blockmap)).status).toBe(200);
    const read = (await readJson(await send("GET", `${versionsPath()}/${version.id}`, ownerToken))).data;
    expect(read.artifacts.map((a: { file_name: string }) => a.file_name)).toEqual([
      version.file_name,
      exe.name,
    ]);

    await expectRefused(await addFile(version.id, {}, { bytes: unique("s"), name: "missing.exe.sig" }), 422, {
      file: ["This version has no file named missing.exe to attach this file to; add missing.exe first."],
    });
  });

  test("bad input: 422 per field; unknown version 404; no file 422; nothing kept", async () => {
    const version = await publish();
    const files = keptFiles();
    await expectRefused(
      await addFile(version.id, { platform: "amiga", arch: "m68k" }, { bytes: unique("x"), name: "x" }),
      422,
      {
        platform: ["The selected platform is invalid."],
        arch: ["The selected arch is invalid."],
      },
    );
    await expectRefused(
      await send("POST", artifactsPath(version.id), ownerToken, multipart({ platform: "linux" })),
      422,
      {
        file: ["The file field is required."],
      },
    );
    await expectRefused(
      await addFile(version.id, { colour: "blue" }, { bytes: unique("x"), name: "x" }),
      422,
      {
        colour: ["The colour field is prohibited."],
      },
    );
    await expectRefused(await addFile(999_999, {}, { bytes: unique("x"), name: "x" }), 404);
    await expectRefused(
      await send("POST", artifactsPath(version.id), ownerToken, ["not", "an", "object"]),
      422,
    );
    expect(keptFiles()).toEqual(files);
    expect(incoming()).toEqual([]);
  });

  test("the database failing after the file was stored: 500 JSON, no artifact and no file left", async () => {
    const version = await publish();
    await t.ctx.db.execute(
      sql.raw(`CREATE FUNCTION refuse_artifact() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF NEW.file_name = 'refused.bin' THEN RAISE EXCEPTION 'the test refuses this artifact'; END IF;
          RETURN NEW;
        END $$`),
    );
    await t.ctx.db.execute(
      sql.raw(
        "CREATE TRIGGER refuse_artifact BEFORE INSERT ON artifacts FOR EACH ROW EXECUTE FUNCTION refuse_artifact()",
      ),
    );
    try {
      const files = keptFiles();
      const response = await addFile(
        version.id,
        { platform: "linux" },
        { bytes: unique("r"), name: "refused.bin" },
      );
      expect(response.status).toBe(500);
      expect(await readJson(response)).toEqual({ message: "Server Error." });
      expect(keptFiles()).toEqual(files);
      expect(incoming()).toEqual([]);
      const rows = await t.ctx.db.select().from(artifacts).where(eq(artifacts.versionId, version.id));
      expect(rows.map((row) => row.fileName)).toEqual([version.file_name]);
    } finally {
      await t.ctx.db.execute(sql.raw("DROP TRIGGER refuse_artifact ON artifacts"));
      await t.ctx.db.execute(sql.raw("DROP FUNCTION refuse_artifact()"));
    }
  });

  test("who may: 401 anonymous, 403 for a holder or another vendor, 201 for an admin", async () => {
    const version = await publish();
    const file = () => ({ bytes: unique("p"), name: "p.bin" });
    await expectRefused(await addFile(version.id, {}, file(), ""), 401);
    await expectRefused(await addFile(version.id, {}, file(), holderToken), 403);
    await expectRefused(await addFile(version.id, {}, file(), strangerToken), 403);
    expect((await addFile(version.id, {}, file(), adminToken)).status).toBe(201);
  });

  test("three runners adding their platform's file to a draft at once: all kept", async () => {
    const draft = await publish({ draft: "true" });
    const platforms = ["windows", "darwin", "linux"] as const;
    const answers = await Promise.all(
      platforms.map((platform) =>
        addFile(
          draft.id,
          { platform, arch: "x86_64" },
          { bytes: unique(platform), name: `App-${platform}.bin` },
        ),
      ),
    );
    expect(answers.map((r) => r.status)).toEqual([201, 201, 201]);
    const read = (await readJson(await send("GET", `${versionsPath()}/${draft.id}`, ownerToken))).data;
    expect(read.artifacts.map((a: { platform: string }) => a.platform).toSorted()).toEqual([
      "any",
      "darwin",
      "linux",
      "windows",
    ]);
    // The same file from two retrying runners at once: one 201, one 200, one artifact.
    const same = { bytes: unique("same"), name: "same.bin" };
    const twice = await Promise.all([addFile(draft.id, {}, same), addFile(draft.id, {}, same)]);
    expect(twice.map((r) => r.status).toSorted()).toEqual([200, 201]);
    const bodies = await Promise.all(twice.map(readJson));
    expect(bodies[0].data.id).toBe(bodies[1].data.id);
  });
});

describe("DELETE …/artifacts/{a} and an artifact's download", () => {
  test("204 removes the artifact and its files; the last one → 422; unknown → 404; others 403", async () => {
    const version = await publish();
    const extra = (
      await readJson(await addFile(version.id, { platform: "linux" }, { bytes: unique("l"), name: "l.deb" }))
    ).data;
    await addFile(version.id, {}, { bytes: unique("bm"), name: "l.deb.blockmap" });
    const [row] = await t.ctx.db.select().from(artifacts).where(eq(artifacts.id, extra.id));
    const path = `${artifactsPath(version.id)}/${extra.id}`;
    await expectRefused(await send("DELETE", path, holderToken), 403);
    await expectRefused(await send("DELETE", path, strangerToken), 403);
    const deleted = await send("DELETE", path, ownerToken);
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe("");
    expect(keptFiles()).not.toContain(row?.storageKey ?? "");
    expect(keptFiles()).not.toContain(row?.blockmapStorageKey ?? "");
    await expectRefused(await send("DELETE", path, ownerToken), 404);
    await expectRefused(
      await send("DELETE", `${artifactsPath(version.id)}/${version.artifacts[0].id}`, ownerToken),
      422,
      {
        artifact: ["A version keeps at least one file; delete the version instead."],
      },
    );
    expect((await send("GET", `${versionsPath()}/${version.id}/download`, ownerToken)).status).toBe(200);
  });

  test("a holder downloads one artifact by its download_url; the download is recorded once", async () => {
    const version = await publish();
    const file = { bytes: unique("arm"), name: "App-arm64.dmg" };
    const { data } = await readJson(await addFile(version.id, { platform: "darwin", arch: "aarch64" }, file));
    const path = new URL(data.download_url).pathname;
    for (let i = 0; i < 2; i++) {
      const response = await send("GET", path, holderToken);
      expect(response.status).toBe(200);
      expect(response.headers.get("etag")).toBe(`"${sha256(file.bytes)}"`);
      expect(response.headers.get("content-disposition")).toContain("App-arm64.dmg");
      expect(sha256(new Uint8Array(await response.arrayBuffer()))).toBe(sha256(file.bytes));
    }
    await expectRefused(await send("GET", path, ""), 401);
    await expectRefused(await send("GET", `${artifactsPath(version.id)}/999999/download`, holderToken), 404);
    await t.ctx.downloads.flush();
    const recorded = await t.ctx.db
      .select()
      .from(versionDownloads)
      .where(eq(versionDownloads.versionId, version.id));
    expect(recorded.map((r) => r.userId)).toEqual([holder.id]);
  });
});

describe("files stored before artifacts existed", () => {
  test("their SHA-512 is read from the store once at start-up; a missing file is left for the next start", async () => {
    const file = { bytes: unique("older"), name: "older.zip" };
    const version = await publish({}, file);
    const id = version.artifacts[0].id;
    await t.ctx.db.update(artifacts).set({ sha512: null }).where(eq(artifacts.id, id));
    const [gone] = await t.ctx.db
      .insert(artifacts)
      .values({
        versionId: version.id,
        platform: "linux",
        arch: "any",
        fileName: "gone.bin",
        fileSize: 1,
        sha256: "2".repeat(64),
        contentType: "application/octet-stream",
        storageKey: `products/${product.id}/${crypto.randomUUID()}`,
      })
      .returning();
    expect(await backfillSha512(t.ctx)).toBe(1);
    const read = (await readJson(await send("GET", `${versionsPath()}/${version.id}`, ownerToken))).data;
    expect(read.artifacts.map((a: { sha512: string | null }) => a.sha512)).toEqual([
      sha512(file.bytes),
      null,
    ]);
    expect(gone?.sha512).toBeNull();
    await t.ctx.db.delete(artifacts).where(eq(artifacts.id, gone?.id ?? 0));
  });
});

// --- PATCH: release, yank, channel, rollout --------------------------------------------------------

describe("PATCH /api/products/{p}/versions/{v}", () => {
  test("releasing a draft notifies each holder exactly once", async () => {
    const draft = await publish({ draft: "1" });
    const released = await patch(draft.id, { status: "published" });
    expect(released.status).toBe(200);
    const { data } = await readJson(released);
    expect([data.status, data.published_at]).toEqual(["published", expect.stringMatching(ISO)]);
    // Again, and at once from two requests: nothing more to do.
    const more = await Promise.all([
      patch(draft.id, { status: "published" }),
      patch(draft.id, { status: "published" }),
    ]);
    expect(more.map((r) => r.status)).toEqual([200, 200]);
    expect(await jobsFor("version.published", draft.id)).toBe(1);
    const about = (list: { type: string; data: { version_id: number } }[]) =>
      list.filter((n) => n.data.version_id === draft.id);
    await until(
      "the holder's notification",
      async () => about(await notificationsOf(holderToken)).length > 0,
    );
    await until(
      "the idle holder's notification",
      async () => about(await notificationsOf(idleHolderToken)).length > 0,
    );
    await Bun.sleep(300);
    expect(about(await notificationsOf(holderToken)).map((n) => n.type)).toEqual(["version.published"]);
  });

  test("yanking tells the holders who downloaded it (notification and webhook) and hides it from latest", async () => {
    const received: { type: string; data: Record<string, unknown> }[] = [];
    const server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(request) {
        received.push((await request.json()) as (typeof received)[number]);
        return new Response("ok");
      },
    });
    servers.push(server);
    const hook = await send("POST", "/api/webhooks", holderToken, {
      url: `http://127.0.0.1:${server.port}/hook`,
      events: ["version.yanked"],
    });
    expect(hook.status).toBe(201);

    const version = await publish({ version_name: `50.${++serial}.0` });
    expect((await send("GET", `${versionsPath()}/${version.id}/download`, holderToken)).status).toBe(200);
    await t.ctx.downloads.flush();

    const yanked = await patch(version.id, { status: "yanked", yank_reason: "Corrupts saved files" });
    expect(yanked.status).toBe(200);
    expect((await readJson(yanked)).data).toMatchObject({
      status: "yanked",
      yank_reason: "Corrupts saved files",
    });

    const notice = await until("the yank notification", async () =>
      (await notificationsOf(holderToken)).find(
        (n) => n.type === "version.yanked" && n.data.version_id === version.id,
      ),
    );
    expect(notice.data).toMatchObject({
      product_id: product.id,
      version_id: version.id,
      version_number: version.version_number,
      yank_reason: "Corrupts saved files",
    });
    expect(notice.data.download_url).toContain("signature=");
    const event = await until("the version.yanked webhook", () =>
      received.find((e) => e.type === "version.yanked" && e.data.version_id === version.id),
    );
    expect(event.data.yank_reason).toBe("Corrupts saved files");
    // Who never downloaded it is not told.
    await Bun.sleep(300);
    expect(
      (await notificationsOf(idleHolderToken)).filter(
        (n) => n.type === "version.yanked" && n.data.version_id === version.id,
      ),
    ).toEqual([]);

    // Never latest; still downloadable by holders; listed with its status.
    const latest = (await readJson(await send("GET", `${versionsPath()}/latest`, holderToken))).data;
    expect(latest.id).not.toBe(version.id);
    expect((await send("GET", `${versionsPath()}/${version.id}/download`, holderToken)).status).toBe(200);

    // Undone: published again, the reason gone, its first publication date kept; no second yank job.
    const undone = await readJson(await patch(version.id, { status: "published" }));
    expect(undone.data).toMatchObject({
      status: "published",
      yank_reason: null,
      published_at: version.published_at,
    });
    expect(await jobsFor("version.yanked", version.id)).toBe(1);
  });

  test("critical, channel and rollout_percentage are set and shown", async () => {
    const version = await publish();
    const response = await patch(version.id, { critical: true, channel: "beta", rollout_percentage: 25 });
    expect(response.status).toBe(200);
    expect((await readJson(response)).data).toMatchObject({
      id: version.id,
      critical: true,
      channel: "beta",
      rollout_percentage: 25,
      status: "published",
    });
    expect((await readJson(await patch(version.id, { rollout_percentage: 0 }))).data.rollout_percentage).toBe(
      0,
    );
  });

  test.each([
    [
      { rollout_percentage: 101 },
      { rollout_percentage: ["The rollout percentage field must not be greater than 100."] },
    ],
    [
      { rollout_percentage: -1 },
      { rollout_percentage: ["The rollout percentage field must be at least 0."] },
    ],
    [
      { rollout_percentage: 12.5 },
      { rollout_percentage: ["The rollout percentage field must be an integer."] },
    ],
    [{ channel: "nightly" }, { channel: ["The selected channel is invalid."] }],
    [{ status: "gone" }, { status: ["The selected status is invalid."] }],
    [{ critical: "yes" }, { critical: ["The critical field must be true or false."] }],
    [{ colour: "red" }, { colour: ["The colour field is prohibited."] }],
    [{ status: "yanked" }, { yank_reason: ["The yank reason field is required when the status is yanked."] }],
    [{ status: "draft" }, { status: ["A published version cannot become draft."] }],
    [
      { yank_reason: "why" },
      { yank_reason: ["The yank reason field is only allowed when the status is yanked."] },
    ],
  ])("%p → 422 naming the field, nothing changed", async (body, errors) => {
    const version = await publish();
    await expectRefused(await patch(version.id, body), 422, errors);
    const read = (await readJson(await send("GET", `${versionsPath()}/${version.id}`, ownerToken))).data;
    expect(read).toEqual(version);
  });

  test("yanked → draft and draft → yanked are refused; who may: 401, 403, 404", async () => {
    const version = await publish();
    expect((await patch(version.id, { status: "yanked", yank_reason: "bad" })).status).toBe(200);
    await expectRefused(await patch(version.id, { status: "draft" }), 422, {
      status: ["A yanked version cannot become draft."],
    });
    const draft = await publish({ draft: "1" });
    await expectRefused(await patch(draft.id, { status: "yanked", yank_reason: "x" }), 422, {
      status: ["A draft version cannot become yanked."],
    });
    await expectRefused(await patch(version.id, { critical: true }, ""), 401);
    await expectRefused(await patch(version.id, { critical: true }, holderToken), 403);
    await expectRefused(await patch(version.id, { critical: true }, strangerToken), 403);
    await expectRefused(await patch(999_999, { critical: true }), 404);
    expect(await jobsFor("version.published", draft.id)).toBe(0);
  });
});
