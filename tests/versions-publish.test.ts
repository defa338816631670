import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { asc, eq, sql } from "drizzle-orm";
import { selectRows } from "../src/db/rows.ts";
import { artifacts, versions } from "../src/db/schema/index.ts";
import { deleteProduct } from "../src/features/products/service.ts";
import { versionPublished } from "../src/features/versions/jobs.ts";
import { bearer, readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { createBenefit, createOption, createProduct, createUser, tokenFor } from "./helpers/factories.ts";
import { refuseVersionNamed } from "./helpers/publish.ts";

/**
 * Publishing versions (docs/vendors.md, Releases) and the versions API, all through a
 * listening server: body limits, streaming and disconnects live in Bun.serve, not in `app.handle`.
 */

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MiB = 1024 * 1024;

let t: TestApp;
let base: string;
let adminToken: string;
let owner: { id: number };
let ownerToken: string;
/** The product's `vendor_id`: an owner too. */
let coVendorToken: string;
let strangerVendorToken: string;
let customerToken: string;
/** The owner's token limited to an ability that is not `versions.publish`. */
let limitedOwnerToken: string;
let product: { id: number };
let option: { id: number };
let benefit: { id: number; name: string; optionId: number };
let otherBenefit: { id: number; name: string; optionId: number };
let foreignProduct: { id: number };
let foreignBenefit: { id: number };

beforeAll(async () => {
  // Publishing enqueues a pg-boss job in its transaction, so the queue must be up (send only).
  t = await startTestApp({ jobs: "send" });
  base = t.listen();
  adminToken = await tokenFor(t.ctx, await createUser(t.ctx, { role: "admin" }));
  owner = await createUser(t.ctx, { role: "vendor" });
  ownerToken = await tokenFor(t.ctx, owner);
  limitedOwnerToken = await tokenFor(t.ctx, owner, ["users.view"]);
  const coVendor = await createUser(t.ctx, { role: "vendor" });
  coVendorToken = await tokenFor(t.ctx, coVendor);
  const strangerVendor = await createUser(t.ctx, { role: "vendor" });
  strangerVendorToken = await tokenFor(t.ctx, strangerVendor);
  customerToken = await tokenFor(t.ctx, await createUser(t.ctx));

  product = await createProduct(t.ctx, owner, { vendor_id: coVendor.id });
  option = await createOption(t.ctx, product);
  benefit = await createBenefit(t.ctx, { id: option.id, productId: product.id });
  otherBenefit = await createBenefit(t.ctx, { id: option.id, productId: product.id });
  foreignProduct = await createProduct(t.ctx, strangerVendor);
  const foreignOption = await createOption(t.ctx, foreignProduct);
  foreignBenefit = await createBenefit(t.ctx, { id: foreignOption.id, productId: foreignProduct.id });
}, 30_000);
afterAll(() => t.close());

// --- helpers -------------------------------------------------------------------------------------

let serial = 0;
/** A version name no other test uses. */
const nextName = () => `1.${++serial}.0`;
const bytesOf = (text: string) => new TextEncoder().encode(text);
const sha256 = (bytes: Uint8Array) => new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
const randomBytes = (size: number) => crypto.getRandomValues(new Uint8Array(size));

interface FilePart {
  bytes: Uint8Array;
  name: string;
  type?: string;
}

const jar = (text = `release ${crypto.randomUUID()}`): FilePart => ({
  bytes: bytesOf(text),
  name: "plugin.jar",
  type: "application/java-archive",
});

function form(fields: Record<string, string>, file?: FilePart): FormData {
  const body = new FormData();
  for (const [key, value] of Object.entries(fields)) body.append(key, value);
  if (file) body.append("file", new File([file.bytes], file.name, { type: file.type ?? "" }));
  return body;
}

/** The JSON form's file object: base64 content, or the same bytes as a `data:` URI. */
const base64File = (file: FilePart, as: "base64" | "data-uri" = "base64") => ({
  filename: file.name,
  content:
    as === "base64"
      ? Buffer.from(file.bytes).toString("base64")
      : `data:${file.type ?? "application/octet-stream"};base64,${Buffer.from(file.bytes).toString("base64")}`,
  ...(file.type && as === "base64" ? { content_type: file.type } : {}),
});

/** POST to a listening server: a FormData as multipart, anything else as JSON. */
function postTo(url: string, path: string, token: string | undefined, body: FormData | object) {
  const multipart = body instanceof FormData;
  return fetch(`${url}${path}`, {
    method: "POST",
    headers: {
      ...(token ? bearer(token) : {}),
      ...(multipart ? {} : { "content-type": "application/json" }),
    },
    body: multipart ? body : JSON.stringify(body),
  });
}
const post = (path: string, token: string | undefined, body: FormData | object) =>
  postTo(base, path, token, body);
const get = (path: string, token: string) => fetch(`${base}${path}`, { headers: bearer(token) });

const productPath = (p: { id: number } = product) => `/api/products/${p.id}/versions`;
const benefitPath = (b: { id: number } = benefit, p: { id: number } = product) =>
  `/api/products/${p.id}/benefits/${b.id}/versions`;

const fields = (overrides: Record<string, string> = {}): Record<string, string> => ({
  version_name: nextName(),
  title: "A release",
  changelog: "Fixed things.",
  ...overrides,
});

/** Files still in the temporary place (should be none between requests). */
const incoming = (app: TestApp = t) => readdirSync(join(app.ctx.config.storageDir, ".incoming"));
/** Files kept under `products/`, relative to STORAGE_DIR. */
function keptFiles(app: TestApp = t): string[] {
  const root = app.ctx.config.storageDir;
  if (!existsSync(join(root, "products"))) return [];
  return [...new Bun.Glob("products/**/*").scanSync({ cwd: root })].toSorted();
}
const versionRows = (app: TestApp = t) => app.ctx.db.select().from(versions);

/** The version's first artifact (its file), with the version's product id. */
async function rowOf(id: number) {
  const [row] = await t.ctx.db
    .select({ artifact: artifacts, productId: versions.productId, changelog: versions.changelog })
    .from(artifacts)
    .innerJoin(versions, eq(versions.id, artifacts.versionId))
    .where(eq(versions.id, id))
    .orderBy(asc(artifacts.id))
    .limit(1);
  if (!row) throw new Error(`no version ${id}`);
  return { ...row.artifact, productId: row.productId, changelog: row.changelog };
}

async function publishedJobs(app: TestApp = t) {
  const rows = await selectRows<{ name: string; data: { version_id: number } }>(
    app.ctx.db,
    sql`SELECT name, data FROM pgboss.job WHERE name = 'version.published'`,
  );
  return rows.map((row) => row.data.version_id);
}

/** Polls until `check` holds (cleanup after a disconnect is asynchronous); false after `ms`. */
async function eventually(check: () => boolean | Promise<boolean>, ms = 5000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await Bun.sleep(25);
  }
  return check();
}

/** The response, or null if none came within `ms` (a hung request fails its test instead of the run). */
async function withDeadline(request: Promise<Response>, ms: number): Promise<Response | null> {
  const settled = request.catch((error: unknown) => error as Error);
  const result = await Promise.race([settled, Bun.sleep(ms).then(() => null)]);
  if (result instanceof Error) throw result;
  return result;
}

const downloadUrl = (productId: number, versionId: number) =>
  `http://depot.test/api/products/${productId}/versions/${versionId}/download`;

/** The exact documented shape of a version we just published. */
function expectVersion(
  // biome-ignore lint/suspicious/noExplicitAny: a response body
  data: any,
  expected: {
    product: { id: number };
    benefit?: { id: number; name: string; optionId: number } | null;
    fields: Record<string, string>;
    file: FilePart;
    changelog?: string;
  },
) {
  expect(Number.isInteger(data.id)).toBe(true);
  const b = expected.benefit ?? null;
  expect(data).toEqual({
    id: data.id,
    product_id: String(expected.product.id),
    option_id: b ? b.optionId : null,
    purchase_benefit_id: b ? b.id : null,
    benefit_name: b ? b.name : null,
    version_number: expected.fields.version_name,
    title: expected.fields.title,
    changelog: expected.changelog ?? expected.fields.changelog,
    changelog_format: expected.fields.changelog_format ?? "markdown",
    download_url: downloadUrl(expected.product.id, data.id),
    file_name: expected.file.name,
    file_size: expected.file.bytes.byteLength,
    sha256: sha256(expected.file.bytes),
    downloads: "0",
    channel: "stable",
    status: "published",
    critical: false,
    rollout_percentage: 100,
    rollout_schedule: null,
    yank_reason: null,
    published_at: expect.stringMatching(ISO),
    // The sent file is the version's first (here only) artifact, for any platform: none was sent,
    // and a plugin's `.jar` names none.
    artifacts: [
      {
        id: expect.any(Number),
        version_id: data.id,
        platform: "any",
        arch: "any",
        platform_inferred: true,
        arch_inferred: true,
        platform_neutral: true,
        file_name: expected.file.name,
        updaters_only: false,
        file_size: expected.file.bytes.byteLength,
        sha256: sha256(expected.file.bytes),
        sha512: createHash("sha512").update(expected.file.bytes).digest("base64"),
        content_type: expected.file.type ?? "application/octet-stream",
        signature: null,
        download_url: `${downloadUrl(expected.product.id, data.id).replace(/\/download$/, "")}/artifacts/${data.artifacts?.[0]?.id}/download`,
        created_at: expect.stringMatching(ISO),
      },
    ],
    created_at: expect.stringMatching(ISO),
    updated_at: expect.stringMatching(ISO),
  });
  expect(typeof data.product_id).toBe("string");
}

/** The bytes on disk under the version's storage key equal `bytes`. */
async function expectStored(id: number, bytes: Uint8Array) {
  const row = await rowOf(id);
  expect(row.storageKey).toMatch(new RegExp(`^products/${row.productId}/[0-9a-f-]{36}$`));
  expect(row.storageKey.split("/")[2]).toMatch(UUID);
  const stored = readFileSync(join(t.ctx.config.storageDir, row.storageKey));
  expect(stored.byteLength).toBe(bytes.byteLength);
  expect(Buffer.compare(stored, Buffer.from(bytes))).toBe(0);
}

// --- publishing ----------------------------------------------------------------------------------

describe("POST /api/products/{product}/versions: both encodings", () => {
  test("multipart: 201 with every field typed exactly; the file is on disk byte for byte", async () => {
    const file: FilePart = {
      bytes: randomBytes(64 * 1024),
      name: "plugin-1.2.0.jar",
      type: "application/java-archive",
    };
    const sent = fields({ changelog_format: "markdown" });
    const response = await post(productPath(), ownerToken, form(sent, file));
    expect(response.status).toBe(201);
    expect(response.headers.get("content-type")).toContain("application/json");
    const { data } = await readJson(response);
    expectVersion(data, { product, fields: sent, file });
    await expectStored(data.id, file.bytes);
    expect((await rowOf(data.id)).contentType).toBe("application/java-archive");
    expect(incoming()).toEqual([]);
  });

  test("JSON with base64 content and a content_type: 201, same shape and storage", async () => {
    const file: FilePart = { bytes: randomBytes(3000), name: "plugin.zip", type: "application/zip" };
    const sent = fields();
    const response = await post(productPath(), ownerToken, { ...sent, file: base64File(file) });
    expect(response.status).toBe(201);
    const { data } = await readJson(response);
    expectVersion(data, { product, fields: sent, file });
    await expectStored(data.id, file.bytes);
    expect((await rowOf(data.id)).contentType).toBe("application/zip");
  });

  test("JSON with a data: URI and no content_type: the URI's media type is kept", async () => {
    const file: FilePart = {
      bytes: bytesOf("PK\u0003\u0004 not really a zip"),
      name: "theme.zip",
      type: "application/zip",
    };
    const sent = fields({ changelog_format: "html", changelog: "<p>New <em>theme</em></p>" });
    const response = await post(productPath(), ownerToken, { ...sent, file: base64File(file, "data-uri") });
    expect(response.status).toBe(201);
    const { data } = await readJson(response);
    expectVersion(data, { product, fields: sent, file });
    await expectStored(data.id, file.bytes);
    expect((await rowOf(data.id)).contentType).toBe("application/zip");
  });

  test("JSON without content_type: application/octet-stream", async () => {
    const file: FilePart = { bytes: bytesOf("bytes"), name: "x.bin" };
    const sent = fields();
    const response = await post(productPath(), ownerToken, { ...sent, file: base64File(file) });
    expect(response.status).toBe(201);
    const { data } = await readJson(response);
    expect((await rowOf(data.id)).contentType).toBe("application/octet-stream");
  });

  test("benefit_id in the body: a benefit version (multipart string, JSON integer)", async () => {
    const file = jar();
    const sent = fields({ benefit_id: String(benefit.id) });
    const response = await post(productPath(), ownerToken, form(sent, file));
    expect(response.status).toBe(201);
    const { data } = await readJson(response);
    const { benefit_id: _, ...shown } = sent;
    expectVersion(data, { product, benefit, fields: shown, file });

    const json = jar();
    const jsonFields = fields();
    const viaJson = await post(productPath(), ownerToken, {
      ...jsonFields,
      benefit_id: otherBenefit.id,
      file: base64File(json),
    });
    expect(viaJson.status).toBe(201);
    expectVersion((await readJson(viaJson)).data, {
      product,
      benefit: otherBenefit,
      fields: jsonFields,
      file: json,
    });
  });

  test("an empty or null benefit_id means the whole product", async () => {
    const multipart = await post(productPath(), ownerToken, form(fields({ benefit_id: "" }), jar()));
    expect(multipart.status).toBe(201);
    expect((await readJson(multipart)).data.purchase_benefit_id).toBeNull();
    const json = await post(productPath(), ownerToken, {
      ...fields(),
      benefit_id: null,
      file: base64File(jar()),
    });
    expect(json.status).toBe(201);
    expect((await readJson(json)).data).toMatchObject({
      option_id: null,
      purchase_benefit_id: null,
      benefit_name: null,
    });
  });
});

describe("POST /api/products/{product}/benefits/{benefit}/versions", () => {
  test("multipart: the version carries option_id, purchase_benefit_id and benefit_name", async () => {
    const file = jar();
    const sent = fields();
    const response = await post(benefitPath(), ownerToken, form(sent, file));
    expect(response.status).toBe(201);
    const { data } = await readJson(response);
    expectVersion(data, { product, benefit, fields: sent, file });
    expect(data.option_id).toBe(option.id);
    await expectStored(data.id, file.bytes);
  });

  test("JSON: the same, base64 and data: URI", async () => {
    for (const as of ["base64", "data-uri"] as const) {
      const file = jar();
      const sent = fields();
      const response = await post(benefitPath(), ownerToken, { ...sent, file: base64File(file, as) });
      expect(response.status).toBe(201);
      const { data } = await readJson(response);
      expectVersion(data, { product, benefit, fields: sent, file });
      await expectStored(data.id, file.bytes);
    }
  });

  test("benefit_id in the body must agree with the path", async () => {
    const agrees = await post(
      benefitPath(),
      ownerToken,
      form(fields({ benefit_id: String(benefit.id) }), jar()),
    );
    expect(agrees.status).toBe(201);
    const disagrees = await post(
      benefitPath(),
      ownerToken,
      form(fields({ benefit_id: String(otherBenefit.id) }), jar()),
    );
    expect(disagrees.status).toBe(422);
    expect(await readJson(disagrees)).toEqual({
      message: "The selected benefit id is invalid.",
      errors: { benefit_id: ["The selected benefit id is invalid."] },
    });
  });
});

describe("validation: 422 with Laravel bodies, nothing stored", () => {
  const long = "x".repeat(256);

  /** Sends `body` to the whole-product route; expects exactly `errors`, and no file or row left. */
  async function expectInvalid(body: FormData | object, errors: Record<string, string[]>) {
    const rowsBefore = (await versionRows()).length;
    const filesBefore = keptFiles();
    const jobsBefore = (await publishedJobs()).length;
    const response = await post(productPath(), ownerToken, body);
    expect(response.status).toBe(422);
    const messages = Object.values(errors).flat();
    const more = messages.length - 1;
    expect(await readJson(response)).toEqual({
      message: more > 0 ? `${messages[0]} (and ${more} more error${more === 1 ? "" : "s"})` : messages[0],
      errors,
    });
    expect((await versionRows()).length).toBe(rowsBefore);
    expect(keptFiles()).toEqual(filesBefore);
    expect(incoming()).toEqual([]);
    expect((await publishedJobs()).length).toBe(jobsBefore);
  }

  test("version_name and title missing (multipart and JSON)", async () => {
    const errors = {
      version_name: ["The version name field is required."],
      title: ["The title field is required."],
    };
    await expectInvalid(form({ changelog: "c" }, jar()), errors);
    await expectInvalid({ changelog: "c", file: base64File(jar()) }, errors);
    await expectInvalid(form({ version_name: "", title: "", changelog: "c" }, jar()), errors);
  });

  test("version_name and title longer than 255", async () => {
    const errors = {
      version_name: ["The version name field must not be greater than 255 characters."],
      title: ["The title field must not be greater than 255 characters."],
    };
    await expectInvalid(form({ version_name: long, title: long, changelog: "c" }, jar()), errors);
    await expectInvalid({ version_name: long, title: long, changelog: "c", file: base64File(jar()) }, errors);
    // 255 is allowed
    const ok = await post(
      productPath(),
      ownerToken,
      form(fields({ version_name: "v".repeat(255), title: "t".repeat(255) }), jar()),
    );
    expect(ok.status).toBe(201);
  });

  test("changelog missing", async () => {
    await expectInvalid(form({ version_name: nextName(), title: "t" }, jar()), {
      changelog: ["The changelog field is required."],
    });
  });

  test("changelog_format other than markdown or html", async () => {
    await expectInvalid(form(fields({ changelog_format: "rtf" }), jar()), {
      changelog_format: ["The selected changelog format is invalid."],
    });
    await expectInvalid(
      { ...fields({ changelog_format: "HTML" }), file: base64File(jar()) },
      {
        changelog_format: ["The selected changelog format is invalid."],
      },
    );
  });

  test("file missing (multipart and JSON)", async () => {
    await expectInvalid(form(fields()), { file: ["The file field is required."] });
    await expectInvalid({ ...fields() }, { file: ["The file field is required."] });
  });

  test("an empty file (multipart and JSON)", async () => {
    await expectInvalid(form(fields(), { bytes: new Uint8Array(0), name: "empty.jar" }), {
      file: ["The file field must not be empty."],
    });
    await expectInvalid(
      { ...fields(), file: { filename: "empty.jar", content: "data:application/java-archive;base64," } },
      { file: ["The file field must not be empty."] },
    );
  });

  test("JSON file that is not base64 → 422 on file.content", async () => {
    await expectInvalid(
      { ...fields(), file: { filename: "x.jar", content: "not base64!" } },
      {
        "file.content": ["The file content must be valid base64."],
      },
    );
  });

  test("benefit_id of another product, unknown or not an id", async () => {
    for (const id of [String(foreignBenefit.id), "999999", "abc"]) {
      await expectInvalid(form(fields({ benefit_id: id }), jar()), {
        benefit_id: ["The selected benefit id is invalid."],
      });
    }
  });

  test("an unknown extra field", async () => {
    await expectInvalid(form(fields({ colour: "red" }), jar()), {
      colour: ["The colour field is prohibited."],
    });
    await expectInvalid(
      { ...fields(), colour: "red", file: base64File(jar()) },
      {
        colour: ["The colour field is prohibited."],
      },
    );
  });

  test("a field refused while the multipart body is read (NUL, longer than 4 MiB): the file received is removed", async () => {
    await expectInvalid(form(fields({ title: "a\u0000b" }), jar()), {
      title: ["The title field must not contain NUL characters."],
    });
    await expectInvalid(form(fields({ changelog: "x".repeat(4 * MiB + 1) }), jar()), {
      changelog: ["The changelog field is too long."],
    });
  });

  test("everything wrong at once: every field reported in one 422", async () => {
    await expectInvalid(form({ changelog_format: "rtf" }), {
      version_name: ["The version name field is required."],
      title: ["The title field is required."],
      changelog: ["The changelog field is required."],
      changelog_format: ["The selected changelog format is invalid."],
      file: ["The file field is required."],
    });
  });
});

describe("the same version_name again", () => {
  test("with a different file → 422, nothing stored", async () => {
    const sent = fields();
    expect((await post(productPath(), ownerToken, form(sent, jar("first")))).status).toBe(201);
    const files = keptFiles();
    const response = await post(productPath(), ownerToken, form({ ...sent, title: "Other" }, jar("second")));
    expect(response.status).toBe(422);
    expect(await readJson(response)).toEqual({
      message: "The version name has already been taken.",
      errors: { version_name: ["The version name has already been taken."] },
    });
    expect(keptFiles()).toEqual(files);
    expect(incoming()).toEqual([]);
  });

  test("identical re-post (same name, same file) → 200 with the same version; no second row, file or job", async () => {
    const sent = fields();
    const file = jar();
    const first = await post(productPath(), ownerToken, form(sent, file));
    expect(first.status).toBe(201);
    const created = (await readJson(first)).data;
    const files = keptFiles();
    const jobs = await publishedJobs();

    for (const body of [form(sent, file), { ...sent, file: base64File(file) }]) {
      const again = await post(productPath(), ownerToken, body);
      expect(again.status).toBe(200);
      expect(await readJson(again)).toEqual({ data: created });
    }
    const rows = (await versionRows()).filter(
      (row) => row.productId === product.id && row.versionNumber === sent.version_name,
    );
    expect(rows).toHaveLength(1);
    expect(keptFiles()).toEqual(files);
    expect(incoming()).toEqual([]);
    expect(await publishedJobs()).toEqual(jobs);
  });

  test("the same name on another benefit, or on the whole product, is a new version", async () => {
    const sent = fields();
    const file = jar();
    const ids = [];
    for (const path of [productPath(), benefitPath(benefit), benefitPath(otherBenefit)]) {
      const response = await post(path, ownerToken, form(sent, file));
      expect(response.status).toBe(201);
      ids.push((await readJson(response)).data.id);
    }
    expect(new Set(ids).size).toBe(3);
    // And on the benefit itself the same name is taken.
    const taken = await post(benefitPath(benefit), ownerToken, form(sent, jar()));
    expect(taken.status).toBe(422);
  });
});

describe("concurrent identical posts", () => {
  test("two identical posts at once: one 201, one 200 with the same version; one row, one file", async () => {
    const sent = fields();
    const file: FilePart = { bytes: randomBytes(256 * 1024), name: "race.jar" };
    const files = keptFiles().length;
    const responses = await Promise.all([
      post(productPath(), ownerToken, form(sent, file)),
      post(productPath(), ownerToken, form(sent, file)),
    ]);
    expect(responses.map((r) => r.status).toSorted()).toEqual([200, 201]);
    const [a, b] = await Promise.all(responses.map((r) => readJson(r)));
    expect(a).toEqual(b);
    const rows = (await versionRows()).filter((row) => row.versionNumber === sent.version_name);
    expect(rows).toHaveLength(1);
    expect(keptFiles()).toHaveLength(files + 1);
    expect(incoming()).toEqual([]);
    expect((await publishedJobs()).filter((id) => id === a.data.id)).toHaveLength(1);
  }, 30_000);
});

describe("changelogs", () => {
  test("an HTML changelog is sanitised: scripts, handlers and javascript: URLs go, formatting stays", async () => {
    const dirty =
      '<h2>What\'s new</h2><p onclick="steal()"><strong>Faster</strong> <em>sync</em></p>' +
      '<ul><li><a href="javascript:alert(1)">bad</a></li><li><a href="https://example.com/notes">notes</a></li></ul>' +
      "<script>alert(1)</script><img src=x onerror=alert(1)>";
    const sent = fields({ changelog_format: "html", changelog: dirty });
    const response = await post(productPath(), ownerToken, form(sent, jar()));
    expect(response.status).toBe(201);
    const { data } = await readJson(response);
    expect(data.changelog_format).toBe("html");
    expect(data.changelog).toBe(
      "<h2>What's new</h2><p><strong>Faster</strong> <em>sync</em></p>" +
        '<ul><li><a>bad</a></li><li><a href="https://example.com/notes">notes</a></li></ul>' +
        // A relative src would load from depot itself: it goes too (changelog-preview.test.ts).
        "<img />",
    );
    expect((await rowOf(data.id)).changelog).toBe(data.changelog);
  });

  test("a long multi-byte changelog (1.2 MB of UTF-8, 600,000 characters) is stored whole or refused, never cut", async () => {
    const changelog = "é".repeat(600_000);
    const response = await post(productPath(), ownerToken, form(fields({ changelog }), jar()));
    if (response.status === 201) {
      const { data } = await readJson(response);
      expect(data.changelog.length).toBe(changelog.length);
      expect(data.changelog).toBe(changelog);
    } else {
      expect(response.status).toBe(422);
      expect((await readJson(response)).errors.changelog).toHaveLength(1);
    }
  }, 30_000);

  test("a markdown changelog is stored exactly as sent", async () => {
    const markdown = "# 2.0\n\n* <script>not html here</script>\n* [link](javascript:void) & more\n";
    const sent = fields({ changelog: markdown });
    const response = await post(productPath(), ownerToken, { ...sent, file: base64File(jar()) });
    expect(response.status).toBe(201);
    const { data } = await readJson(response);
    expect(data.changelog).toBe(markdown);
    expect(data.changelog_format).toBe("markdown");
    expect((await rowOf(data.id)).changelog).toBe(markdown);
  });
});

// --- who may publish ------------------------------------------------------------------------------

describe("publishing: who may", () => {
  test("the owner by user_id, the owner by vendor_id and an admin may publish on both routes", async () => {
    for (const token of [ownerToken, coVendorToken, adminToken]) {
      for (const path of [productPath(), benefitPath()]) {
        const response = await post(path, token, form(fields(), jar()));
        expect(response.status).toBe(201);
      }
    }
  }, 30_000);

  test("refused requests (401, 403) store nothing, even with a sizeable file", async () => {
    const rows = (await versionRows()).length;
    const files = keptFiles();
    const big: FilePart = { bytes: randomBytes(2 * MiB), name: "big.jar" };
    for (const token of [undefined, "garbled", strangerVendorToken, customerToken, limitedOwnerToken]) {
      const response = await post(productPath(), token, form(fields(), big));
      expect([401, 403]).toContain(response.status);
      await response.arrayBuffer();
    }
    expect((await versionRows()).length).toBe(rows);
    expect(keptFiles()).toEqual(files);
    expect(incoming()).toEqual([]);
  }, 30_000);

  test("unknown product, unknown benefit, benefit of another product, soft-deleted product → 404", async () => {
    const doomed = await createProduct(t.ctx, owner);
    await deleteProduct(t.ctx, doomed.id);
    const rows = (await versionRows()).length;
    const files = keptFiles();
    const cases: [string, string][] = [
      ["/api/products/999999/versions", "Product not found."],
      ["/api/products/abc/versions", "Product not found."],
      [`/api/products/999999/benefits/${benefit.id}/versions`, "Product not found."],
      [`/api/products/${product.id}/benefits/999999/versions`, "Benefit not found."],
      [`/api/products/${product.id}/benefits/abc/versions`, "Benefit not found."],
      [benefitPath(foreignBenefit, product), "Benefit not found."],
      [productPath(doomed), "Product not found."],
    ];
    for (const [path, message] of cases) {
      for (const token of [ownerToken, adminToken]) {
        for (const body of [form(fields(), jar()), { ...fields(), file: base64File(jar()) }]) {
          const response = await post(path, token, body);
          expect({ path, status: response.status }).toEqual({ path, status: 404 });
          expect(await readJson(response)).toEqual({ message });
        }
      }
    }
    expect((await versionRows()).length).toBe(rows);
    expect(keptFiles()).toEqual(files);
    expect(incoming()).toEqual([]);
  }, 30_000);

  test("neither multipart nor JSON → 415 with a message", async () => {
    const response = await fetch(`${base}${productPath()}`, {
      method: "POST",
      headers: { ...bearer(ownerToken), "content-type": "text/plain" },
      body: "hello",
    });
    expect(response.status).toBe(415);
    expect(await readJson(response)).toEqual({
      message: "Send the version as multipart/form-data or as application/json.",
    });
  });
});

// --- limits and broken uploads ---------------------------------------------------------------------

describe("413 and cleanup (MAX_UPLOAD_BYTES 1 MiB, MAX_JSON_UPLOAD_BYTES 64 KiB)", () => {
  let small: TestApp;
  let smallBase: string;
  let smallToken: string;
  let smallProduct: { id: number };

  beforeAll(async () => {
    small = await startTestApp({
      jobs: "send",
      env: { MAX_UPLOAD_BYTES: String(MiB), MAX_JSON_UPLOAD_BYTES: String(64 * 1024) },
    });
    smallBase = small.listen();
    const vendor = await createUser(small.ctx, { role: "vendor" });
    smallToken = await tokenFor(small.ctx, vendor);
    smallProduct = await createProduct(small.ctx, vendor);
  });
  afterAll(() => small.close());

  const smallPath = () => `/api/products/${smallProduct.id}/versions`;
  async function expectNothingStored() {
    expect(incoming(small)).toEqual([]);
    expect(keptFiles(small)).toEqual([]);
    expect(await versionRows(small)).toEqual([]);
    expect(await publishedJobs(small)).toEqual([]);
  }

  test("a 2 MiB multipart file (declared length over the limit) → 413 JSON, nothing stored", async () => {
    const response = await postTo(
      smallBase,
      smallPath(),
      smallToken,
      form(fields(), { bytes: randomBytes(2 * MiB), name: "big.jar" }),
    );
    expect(response.status).toBe(413);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(await readJson(response)).toEqual({ message: "The request body is too large." });
    await expectNothingStored();
  }, 30_000);

  test("a 1.5 MiB multipart file (within the framing allowance) is cut off while streaming → 413, partial file gone, every time", async () => {
    // Repeated: whether the server has read the whole body before the limit trips is a race, and
    // each ordering must end in a 413 (not a request that never gets an answer).
    for (let attempt = 1; attempt <= 25; attempt++) {
      const response = await withDeadline(
        postTo(
          smallBase,
          smallPath(),
          smallToken,
          form(fields(), { bytes: randomBytes(1.5 * MiB), name: "big.jar" }),
        ),
        3000,
      );
      expect({ attempt, status: response?.status ?? "no answer within 3 s" }).toEqual({
        attempt,
        status: 413,
      });
      expect(await readJson(response as Response)).toEqual({
        message: `The file may not be greater than ${MiB} bytes.`,
      });
      await expectNothingStored();
    }
  }, 60_000);

  test("a declared length far over the limit (8 MiB) → still a JSON 413, nothing stored", async () => {
    const response = await withDeadline(
      postTo(
        smallBase,
        smallPath(),
        smallToken,
        form(fields(), { bytes: randomBytes(8 * MiB), name: "huge.jar" }),
      ),
      5000,
    );
    expect(response?.status).toBe(413);
    expect(response?.headers.get("content-type") ?? "(no content-type)").toContain("application/json");
    expect(await response?.text()).toBe(JSON.stringify({ message: "The request body is too large." }));
    await expectNothingStored();
  }, 30_000);

  test("a chunked multipart upload without Content-Length over the limit → 413, partial file gone", async () => {
    const boundary = `depot-${crypto.randomUUID()}`;
    const encoder = new TextEncoder();
    const head = encoder.encode(
      [
        `--${boundary}\r\nContent-Disposition: form-data; name="version_name"\r\n\r\n9.0.0\r\n`,
        `--${boundary}\r\nContent-Disposition: form-data; name="title"\r\n\r\nChunked\r\n`,
        `--${boundary}\r\nContent-Disposition: form-data; name="changelog"\r\n\r\nc\r\n`,
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="chunked.jar"\r\n`,
        "Content-Type: application/octet-stream\r\n\r\n",
      ].join(""),
    );
    const tail = encoder.encode(`\r\n--${boundary}--\r\n`);
    const chunk = randomBytes(64 * 1024);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(head);
      },
      pull(controller) {
        if (sent >= 3 * MiB) {
          controller.enqueue(tail);
          controller.close();
          return;
        }
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const response = await withDeadline(
      fetch(`${smallBase}${smallPath()}`, {
        method: "POST",
        headers: { ...bearer(smallToken), "content-type": `multipart/form-data; boundary=${boundary}` },
        body,
        duplex: "half",
      } as RequestInit),
      5000,
    );
    expect(response?.status).toBe(413);
    expect(await readJson(response as Response)).toEqual({
      message: `The file may not be greater than ${MiB} bytes.`,
    });
    expect(await eventually(() => incoming(small).length === 0)).toBe(true);
    await expectNothingStored();
  }, 30_000);

  test("JSON base64 over MAX_JSON_UPLOAD_BYTES decoded → 413; exactly the limit is accepted", async () => {
    const over = await postTo(smallBase, smallPath(), smallToken, {
      ...fields(),
      file: base64File({ bytes: randomBytes(64 * 1024 + 1), name: "big.jar" }),
    });
    expect(over.status).toBe(413);
    expect(await readJson(over)).toEqual({ message: "The file may not be greater than 65536 bytes." });
    const asUri = await postTo(smallBase, smallPath(), smallToken, {
      ...fields(),
      file: base64File({ bytes: randomBytes(64 * 1024 + 1), name: "big.jar" }, "data-uri"),
    });
    expect(asUri.status).toBe(413);
    // A JSON body far past what the base64 limit can need is refused before it is read.
    const huge = await postTo(smallBase, smallPath(), smallToken, {
      ...fields(),
      file: base64File({ bytes: randomBytes(2 * MiB), name: "big.jar" }),
    });
    expect(huge.status).toBe(413);
    expect(await readJson(huge)).toEqual({ message: "The request body is too large." });
    await expectNothingStored();

    const atLimit: FilePart = { bytes: randomBytes(64 * 1024), name: "exact.jar" };
    const ok = await postTo(smallBase, smallPath(), smallToken, { ...fields(), file: base64File(atLimit) });
    expect(ok.status).toBe(201);
    expect((await readJson(ok)).data.file_size).toBe(64 * 1024);
  }, 30_000);

  test("a multipart file of exactly MAX_UPLOAD_BYTES is accepted", async () => {
    const response = await postTo(
      smallBase,
      smallPath(),
      smallToken,
      form(fields(), { bytes: randomBytes(MiB), name: "exact.jar" }),
    );
    expect(response.status).toBe(201);
    expect((await readJson(response)).data.file_size).toBe(MiB);
    expect(incoming(small)).toEqual([]);
  }, 30_000);
});

describe("a client that disconnects mid-upload", () => {
  /** A multipart request's head and the start of its file part, declared larger than what is sent. */
  function halfRequest(name: string, declaredFileBytes: number) {
    const boundary = `depot-${crypto.randomUUID()}`;
    const head = Buffer.from(
      [
        `--${boundary}\r\nContent-Disposition: form-data; name="version_name"\r\n\r\n${name}\r\n`,
        `--${boundary}\r\nContent-Disposition: form-data; name="title"\r\n\r\nHalf\r\n`,
        `--${boundary}\r\nContent-Disposition: form-data; name="changelog"\r\n\r\nc\r\n`,
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="half.jar"\r\n`,
        "Content-Type: application/octet-stream\r\n\r\n",
      ].join(""),
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    return { boundary, head, length: head.byteLength + declaredFileBytes + tail.byteLength };
  }

  test("a socket closed halfway through the file leaves no file in .incoming or products/ and no row", async () => {
    const name = nextName();
    const files = keptFiles();
    const { boundary, head, length } = halfRequest(name, 8 * MiB);
    const { port } = new URL(base);
    const socket = connect(Number(port), "127.0.0.1");
    await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
    socket.on("error", () => {});
    socket.write(
      `POST ${productPath()} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
        `Authorization: Bearer ${ownerToken}\r\n` +
        `Content-Type: multipart/form-data; boundary=${boundary}\r\n` +
        `Content-Length: ${length}\r\n\r\n`,
    );
    socket.write(head);
    socket.write(Buffer.alloc(2 * MiB, 7));
    // The file is streaming to a temporary file before the client goes away.
    expect(await eventually(() => incoming().length === 1)).toBe(true);
    socket.destroy();

    expect(await eventually(() => incoming().length === 0)).toBe(true);
    expect(keptFiles()).toEqual(files);
    const rows = await versionRows();
    expect(rows.filter((row) => row.versionNumber === name)).toEqual([]);
  }, 30_000);

  test("a fetch aborted while its body streams leaves nothing either", async () => {
    const name = nextName();
    const files = keptFiles();
    const { boundary, head } = halfRequest(name, 0);
    const abort = new AbortController();
    const chunk = new Uint8Array(64 * 1024).fill(9);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(head));
      },
      async pull(controller) {
        if (sent >= MiB) {
          // Stall with half a file sent; the client gives up below.
          await Bun.sleep(50);
          return;
        }
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const request = fetch(`${base}${productPath()}`, {
      method: "POST",
      headers: { ...bearer(ownerToken), "content-type": `multipart/form-data; boundary=${boundary}` },
      body,
      duplex: "half",
      signal: abort.signal,
    } as RequestInit).catch((error: unknown) => error);
    expect(await eventually(() => incoming().length === 1)).toBe(true);
    abort.abort();
    expect(await request).toBeInstanceOf(Error);

    expect(await eventually(() => incoming().length === 0)).toBe(true);
    expect(keptFiles()).toEqual(files);
    const rows = await versionRows();
    expect(rows.filter((row) => row.versionNumber === name)).toEqual([]);
  }, 30_000);
});

describe("the database failing after the file was moved to its key", () => {
  test("500 JSON; the file is removed from products/ and nothing else is left (multipart and JSON)", async () => {
    const name = nextName();
    const lift = await refuseVersionNamed(t.ctx.db, name);
    try {
      const files = keptFiles();
      const rowsBefore = (await versionRows()).length;
      const jobsBefore = (await publishedJobs()).length;
      for (const body of [
        form(fields({ version_name: name }), jar()),
        { ...fields({ version_name: name }), file: base64File(jar()) },
      ]) {
        const response = await post(productPath(), ownerToken, body);
        expect(response.status).toBe(500);
        expect(response.headers.get("content-type")).toStartWith("application/json");
        expect(await readJson(response)).toEqual({ message: "Server Error." });
        expect(keptFiles()).toEqual(files);
        expect(incoming()).toEqual([]);
      }
      expect((await versionRows()).length).toBe(rowsBefore);
      expect((await publishedJobs()).length).toBe(jobsBefore);
    } finally {
      await lift();
    }
    // The same name publishes once the database takes it.
    expect((await post(productPath(), ownerToken, form(fields({ version_name: name }), jar()))).status).toBe(
      201,
    );
  });
});

// --- the outbox -------------------------------------------------------------------------------------

describe("the outbox: version.published", () => {
  test("a publish enqueues exactly one job with {version_id}", async () => {
    const response = await post(productPath(), ownerToken, form(fields(), jar()));
    expect(response.status).toBe(201);
    const { data } = await readJson(response);
    const rows = await selectRows<{ name: string; data: unknown }>(
      t.ctx.db,
      sql`SELECT name, data FROM pgboss.job WHERE name = 'version.published'`,
    );
    expect(rows.filter((row) => (row.data as { version_id: number }).version_id === data.id)).toEqual([
      { name: "version.published", data: { version_id: data.id } },
    ]);
  });

  test("a refused publish (422) enqueues nothing", async () => {
    const before = await publishedJobs();
    const response = await post(productPath(), ownerToken, form({ title: "no name", changelog: "c" }, jar()));
    expect(response.status).toBe(422);
    expect(await publishedJobs()).toEqual(before);
  });

  test("a job sent in a transaction exists only if the transaction commits", async () => {
    await expect(
      t.ctx.db.transaction(async (tx) => {
        await t.ctx.jobs.sendInTransaction(tx, versionPublished, { version_id: 999_999 });
        throw new Error("rollback");
      }),
    ).rejects.toThrow("rollback");
    expect(await publishedJobs()).not.toContain(999_999);

    await t.ctx.db.transaction(async (tx) => {
      await t.ctx.jobs.sendInTransaction(tx, versionPublished, { version_id: 999_998 });
    });
    expect(await publishedJobs()).toContain(999_998);
  });
});

// --- the versions API ---------------------------------------------------------------------------------

describe("the versions API", () => {
  let catalogue: { id: number };
  let catalogueBenefit: { id: number; name: string; optionId: number };
  let emptyBenefit: { id: number };
  // biome-ignore lint/suspicious/noExplicitAny: response bodies
  const published: Record<string, any> = {};

  beforeAll(async () => {
    catalogue = await createProduct(t.ctx, owner);
    const tier = await createOption(t.ctx, catalogue);
    catalogueBenefit = await createBenefit(t.ctx, { id: tier.id, productId: catalogue.id });
    emptyBenefit = await createBenefit(t.ctx, { id: tier.id, productId: catalogue.id });
    for (const [key, path] of [
      ["w1", productPath(catalogue)],
      ["w2", productPath(catalogue)],
      ["b1", benefitPath(catalogueBenefit, catalogue)],
    ] as const) {
      const response = await post(path, ownerToken, form(fields({ title: key }), jar()));
      expect(response.status).toBe(201);
      published[key] = (await readJson(response)).data;
    }
  });

  test("list: simple pagination, newest first, absolute links from APP_URL", async () => {
    const path = `/api/products/${catalogue.id}/versions`;
    const first = await get(`${path}?per_page=2`, customerToken);
    expect(first.status).toBe(200);
    const page1 = await readJson(first);
    const url = `http://depot.test${path}`;
    expect(page1).toEqual({
      data: [published.b1, published.w2],
      links: { first: `${url}?per_page=2&page=1`, last: null, prev: null, next: `${url}?per_page=2&page=2` },
      meta: { current_page: 1, from: 1, path: url, per_page: 2, to: 2 },
    });
    const page2 = await readJson(await get(`${path}?per_page=2&page=2`, customerToken));
    expect(page2).toEqual({
      data: [published.w1],
      links: { first: `${url}?per_page=2&page=1`, last: null, prev: `${url}?per_page=2&page=1`, next: null },
      meta: { current_page: 2, from: 3, path: url, per_page: 2, to: 3 },
    });
    const empty = await readJson(await get(`${path}?page=5`, customerToken));
    expect(empty.data).toEqual([]);
    expect(empty.meta).toMatchObject({ from: null, to: null, current_page: 5 });

    const bad = await get(`${path}?page=0`, customerToken);
    expect(bad.status).toBe(422);
    expect(await readJson(bad)).toEqual({
      message: "The page field must be an integer of at least 1.",
      errors: { page: ["The page field must be an integer of at least 1."] },
    });
  });

  test("latest: of the whole product, of one benefit; 404 when none; ?benefit=abc → 422", async () => {
    const path = `/api/products/${catalogue.id}/versions/latest`;
    const whole = await get(path, customerToken);
    expect(whole.status).toBe(200);
    expect(await readJson(whole)).toEqual({ data: published.w2 });
    expect(await readJson(await get(`${path}?benefit=${catalogueBenefit.id}`, customerToken))).toEqual({
      data: published.b1,
    });

    const none = await get(`${path}?benefit=${emptyBenefit.id}`, customerToken);
    expect(none.status).toBe(404);
    expect(await readJson(none)).toEqual({ message: "Version not found." });
    const bare = await createProduct(t.ctx, owner);
    const noVersions = await get(`/api/products/${bare.id}/versions/latest`, customerToken);
    expect(noVersions.status).toBe(404);
    expect(await readJson(noVersions)).toEqual({ message: "Version not found." });

    const bad = await get(`${path}?benefit=abc`, customerToken);
    expect(bad.status).toBe(422);
    expect(await readJson(bad)).toEqual({
      message: "The benefit field must be an integer.",
      errors: { benefit: ["The benefit field must be an integer."] },
    });
  });

  test("show: the version as published; unknown or of another product → 404", async () => {
    const response = await get(`/api/products/${catalogue.id}/versions/${published.w1.id}`, customerToken);
    expect(response.status).toBe(200);
    expect(await readJson(response)).toEqual({ data: published.w1 });
    for (const path of [
      `/api/products/${catalogue.id}/versions/999999`,
      `/api/products/${product.id}/versions/${published.w1.id}`,
    ]) {
      const missing = await get(path, customerToken);
      expect(missing.status).toBe(404);
      expect(await readJson(missing)).toEqual({ message: "Version not found." });
    }
    const unauthenticated = await fetch(`${base}/api/products/${catalogue.id}/versions/${published.w1.id}`);
    expect(unauthenticated.status).toBe(401);
    expect(await readJson(unauthenticated)).toEqual({ message: "Unauthenticated." });
  });

  test("delete: 403 for non-publishers; 204 for the owner, and the row and the file are gone", async () => {
    const response = await post(productPath(catalogue), ownerToken, form(fields(), jar()));
    const doomed = (await readJson(response)).data;
    const { storageKey } = await rowOf(doomed.id);
    const path = `/api/products/${catalogue.id}/versions/${doomed.id}`;
    const del = (token: string) => fetch(`${base}${path}`, { method: "DELETE", headers: bearer(token) });

    for (const token of [customerToken, strangerVendorToken, limitedOwnerToken]) {
      const refused = await del(token);
      expect(refused.status).toBe(403);
      expect(await readJson(refused)).toEqual({ message: "This action is unauthorized." });
    }
    expect(existsSync(join(t.ctx.config.storageDir, storageKey))).toBe(true);

    const deleted = await del(ownerToken);
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe("");
    expect(await t.ctx.db.select().from(versions).where(eq(versions.id, doomed.id))).toEqual([]);
    expect(existsSync(join(t.ctx.config.storageDir, storageKey))).toBe(false);
    expect((await get(path, ownerToken)).status).toBe(404);
    const again = await del(ownerToken);
    expect(again.status).toBe(404);
    expect(await readJson(again)).toEqual({ message: "Version not found." });
  });

  test("an admin may delete any version", async () => {
    const response = await post(productPath(catalogue), ownerToken, form(fields(), jar()));
    const doomed = (await readJson(response)).data;
    const deleted = await fetch(`${base}/api/products/${catalogue.id}/versions/${doomed.id}`, {
      method: "DELETE",
      headers: bearer(adminToken),
    });
    expect(deleted.status).toBe(204);
  });

  test("a hidden product's versions are 404 for a stranger, visible to its owner", async () => {
    const hidden = await createProduct(t.ctx, owner, { hidden: true });
    const response = await post(productPath(hidden), ownerToken, form(fields(), jar()));
    expect(response.status).toBe(201);
    const version = (await readJson(response)).data;
    for (const path of [
      `/api/products/${hidden.id}/versions`,
      `/api/products/${hidden.id}/versions/latest`,
      `/api/products/${hidden.id}/versions/${version.id}`,
    ]) {
      const stranger = await get(path, customerToken);
      expect(stranger.status).toBe(404);
      expect(await readJson(stranger)).toEqual({ message: "Product not found." });
      expect((await get(path, ownerToken)).status).toBe(200);
      expect((await get(path, adminToken)).status).toBe(200);
    }
    const del = await fetch(`${base}/api/products/${hidden.id}/versions/${version.id}`, {
      method: "DELETE",
      headers: bearer(customerToken),
    });
    expect(del.status).toBe(404);
  });
});
