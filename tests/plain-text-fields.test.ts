import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { bearer, readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import {
  createOption,
  createProduct,
  createUser,
  insertVersionRow,
  licenseIn,
  licenseWorld,
  tokenFor,
} from "./helpers/factories.ts";
import { sessionHeaders, signIn, userWithPassword } from "./helpers/sessions.ts";

/**
 * Issue 32, item 3: the plain-text rule (validation/schemas.ts: no bidirectional controls, no control
 * characters; tabs and line breaks allowed in longer text) on every string field a client sends that
 * people read later, in the dashboard, an e-mail, a feed or a terminal. A fingerprint ending in U+202E
 * was accepted and shown in the dashboard. Each field below gets U+202E (RIGHT-TO-LEFT OVERRIDE),
 * U+2066 (LEFT-TO-RIGHT ISOLATE), a NUL and a C0 control (ESC, which starts a terminal's escape
 * sequences) after an otherwise good value, through its route, and must answer 422 naming the field.
 *
 * The audit: every input schema's strings (src/features/*\/schemas.ts and the bodies routes declare).
 * Read by people, so listed here: the machine fields (activate, validate/checkout, the offline
 * request), user, token, API key, option and benefit names, the setup page's name, a product's name,
 * description, long description, tags, images and video URL, a version's name, title, changelog (and
 * its preview) and yank reason, a webhook's URL, e-mail addresses, role names. Left out, as nobody reads
 * them as text: license keys, nonces, passwords, codes and tokens (compared, never shown); search
 * terms and other query filters (not kept); a `.sig` file's text (handed to updaters as it came); file
 * names, which drop these characters instead (validation/file-name.ts, a rule of their own).
 */

setDefaultTimeout(60_000);

/** The values each field is sent, after an otherwise good one. */
const BAD: [string, string][] = [
  ["U+202E (right-to-left override)", "\u202e"],
  ["U+2066 (left-to-right isolate)", "\u2066"],
  ["NUL", "\u0000"],
  ["ESC (a C0 control)", "\u001b"],
];

let t: TestApp;
let base: string;
let serial = 0;
const next = () => ++serial;

interface FieldCase {
  /** The route and the field, as the test's name says them. */
  where: string;
  /** The key the 422's `errors` must name. */
  field: string;
  /** Sends a request whose only fault is `value` in the field. */
  send(value: string): Promise<Response>;
  /** Where the field sits inside another one (the offline request), the name its message gives. */
  inside?: string;
}

const cases: FieldCase[] = [];
const post = (path: string, body: unknown, headers: Record<string, string> = {}, method = "POST") =>
  fetch(`${base}${path}`, {
    method,
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

beforeAll(async () => {
  t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: "true" } });
  base = t.listen();
  const world = await licenseWorld(t.ctx);
  const admin = await createUser(t.ctx, { role: "admin" });
  const adminToken = await tokenFor(t.ctx, admin);
  const vendorToken = await tokenFor(t.ctx, world.creatorA);
  const ownerToken = await tokenFor(t.ctx, world.owner);
  const product = await createProduct(t.ctx, world.creatorA);
  const option = await createOption(t.ctx, product);
  const { version } = await insertVersionRow(t.ctx, {
    productId: product.id,
    versionNumber: "1.0.0",
    title: "First",
    changelog: "- first",
    changelogFormat: "markdown",
    publishedBy: world.creatorA.id,
  });
  const license = await licenseIn(t, world, { maxMachines: 100 });
  const asAdmin = bearer(adminToken);
  // The profile and one's own tokens are changed from the dashboard: a session, not a token.
  const password = "correct horse battery";
  const someone = await userWithPassword(t.ctx, password);
  const asSession = sessionHeaders(await signIn(base, someone.email, password));

  const machineFields = {
    fingerprint: "fp-ok",
    name: "Ada's laptop",
    platform: "linux-x64",
    hostname: "ada",
  };
  for (const field of Object.keys(machineFields) as (keyof typeof machineFields)[]) {
    cases.push({
      where: `POST /api/v1/licenses/activate ${field}`,
      field,
      send: (value) =>
        post("/api/v1/licenses/activate", { key: license.key, ...machineFields, [field]: value }),
    });
    cases.push({
      where: `POST /api/licenses/{id}/machines/offline request.${field}`,
      field: "request",
      inside: field,
      send: (value) =>
        post(
          `/api/licenses/${license.id}/machines/offline`,
          {
            request: Buffer.from(
              JSON.stringify({ v: 1, key: license.key, ...machineFields, [field]: value }),
            ).toString("base64"),
          },
          bearer(ownerToken),
        ),
    });
  }
  cases.push({
    where: "POST /api/v1/licenses/validate fingerprint (and checkout's)",
    field: "fingerprint",
    send: (value) => post("/api/v1/licenses/validate", { key: license.key, fingerprint: value }),
  });

  cases.push(
    {
      where: "POST /api/admin/users name",
      field: "name",
      send: (value) =>
        post("/api/admin/users", { name: value, email: `u${next()}@example.com`, role: "customer" }, asAdmin),
    },
    {
      where: "POST /api/admin/users email",
      field: "email",
      send: (value) =>
        post(
          "/api/admin/users",
          { name: "Ok", email: `u${next()}@example.com${value}`, role: "customer" },
          asAdmin,
        ),
    },
    {
      where: "PATCH /api/admin/users/{user} name",
      field: "name",
      send: (value) => post(`/api/admin/users/${world.owner.id}`, { name: value }, asAdmin, "PATCH"),
    },
    {
      where: "PATCH /api/profile name",
      field: "name",
      send: (value) => post("/api/profile", { name: value }, asSession, "PATCH"),
    },
    {
      where: "POST /api/tokens name",
      field: "name",
      send: (value) => post("/api/tokens", { name: value }, asSession),
    },
    {
      where: "POST /api/admin/users/{user}/tokens name",
      field: "name",
      send: (value) => post(`/api/admin/users/${world.owner.id}/tokens`, { name: value }, asAdmin),
    },
    {
      where: "POST /api/admin/api-keys name",
      field: "name",
      send: (value) => post("/api/admin/api-keys", { name: value }, asAdmin),
    },
    {
      where: "POST /api/admin/roles name",
      field: "name",
      send: (value) => post("/api/admin/roles", { name: `role-${next()}${value}`, permissions: [] }, asAdmin),
    },
    {
      where: "POST /api/admin/products/{product}/options name",
      field: "name",
      send: (value) => post(`/api/admin/products/${product.id}/options`, { name: value, price: 1 }, asAdmin),
    },
    {
      where: "POST /api/admin/products/{product}/benefits name",
      field: "name",
      send: (value) =>
        post(`/api/admin/products/${product.id}/benefits`, { option_id: option.id, name: value }, asAdmin),
    },
  );

  const productField = (field: string, value: (bad: string) => unknown) => ({
    where: `POST /api/admin/products ${field} (and its PATCH)`,
    field: field === "tags" || field === "gallery_images" ? `${field}.0` : field,
    send: (bad: string) =>
      post(
        "/api/admin/products",
        { name: `Product ${next()}`, user_id: world.creatorA.id, [field]: value(bad) },
        asAdmin,
      ),
  });
  cases.push(
    productField("name", (bad) => `Product ${next()}${bad}`),
    productField("description", (bad) => `A description${bad}`),
    productField("long_description", (bad) => `# A long description${bad}`),
    productField("tags", (bad) => [`tag${bad}`]),
    productField("cover_image", (bad) => `https://example.com/cover.png${bad}`),
    productField("gallery_images", (bad) => [`https://example.com/1.png${bad}`]),
    productField("youtube_video_url", (bad) => `https://youtu.be/x${bad}`),
  );

  const publish = (fields: Record<string, string>) =>
    post(
      `/api/products/${product.id}/versions`,
      {
        version_name: `2.0.${next()}`,
        title: "A release",
        changelog: "- a change",
        file: { filename: "app.zip", content: Buffer.from("zip").toString("base64") },
        ...fields,
      },
      bearer(vendorToken),
    );
  cases.push(
    {
      where: "POST /api/products/{product}/versions version_name",
      field: "version_name",
      send: (value) => publish({ version_name: `3.0.${next()}${value}` }),
    },
    {
      where: "POST /api/products/{product}/versions title",
      field: "title",
      send: (value) => publish({ title: `A release${value}` }),
    },
    {
      where: "POST /api/products/{product}/versions changelog",
      field: "changelog",
      send: (value) => publish({ changelog: `- a change${value}` }),
    },
    {
      where: "POST /api/changelog/preview changelog",
      field: "changelog",
      send: (value) =>
        post("/api/changelog/preview", { changelog: `- a change${value}` }, bearer(vendorToken)),
    },
    {
      where: "PATCH /api/products/{product}/versions/{version} yank_reason",
      field: "yank_reason",
      send: (value) =>
        post(
          `/api/products/${product.id}/versions/${version.id}`,
          { status: "yanked", yank_reason: `Broken installer${value}` },
          bearer(vendorToken),
          "PATCH",
        ),
    },
    {
      where: "POST /api/webhooks url",
      field: "url",
      send: (value) => post("/api/webhooks", { url: `http://127.0.0.1:9/hook${value}` }, asAdmin),
    },
  );
});
afterAll(() => t?.close());

describe("every user-visible string field refuses bidirectional controls, NUL and C0 controls", () => {
  test("each field × U+202E, U+2066, NUL, ESC → 422 naming the field", async () => {
    expect(cases).toHaveLength(32);
    const accepted: string[] = [];
    for (const fieldCase of cases) {
      for (const [label, bad] of BAD) {
        const response = await fieldCase.send(bad);
        const body = response.status === 422 ? await readJson(response) : await response.text();
        const named =
          response.status === 422 &&
          Object.keys(body.errors).join() === fieldCase.field &&
          (fieldCase.inside === undefined ||
            body.errors.request[0].includes(`(${fieldCase.inside} is missing or invalid)`));
        if (!named)
          accepted.push(`${fieldCase.where} with ${label}: ${response.status} ${JSON.stringify(body)}`);
      }
    }
    expect(accepted).toEqual([]);
  });

  test("the messages say which rule: bidirectional control characters, control characters, NUL", async () => {
    const activate = cases[0];
    if (!activate) throw new Error("no cases");
    const messages = [];
    for (const [, bad] of BAD) messages.push((await readJson(await activate.send(bad))).errors.fingerprint);
    expect(messages).toEqual([
      ["The fingerprint field must not contain bidirectional control characters."],
      ["The fingerprint field must not contain bidirectional control characters."],
      ["The fingerprint field must not contain NUL characters."],
      ["The fingerprint field must not contain control characters."],
    ]);
  });

  test("longer text keeps its tabs and line breaks, and right-to-left text without controls is taken", async () => {
    const world = await licenseWorld(t.ctx);
    const admin = await createUser(t.ctx, { role: "admin" });
    const created = await post(
      "/api/admin/products",
      {
        name: "מוצר — Product",
        user_id: world.creatorA.id,
        description: "Line one\r\nLine two\twith a tab",
        long_description: "# Heading\n\n- a point\n",
        tags: ["עברית"],
      },
      bearer(await tokenFor(t.ctx, admin)),
    );
    expect(created.status).toBe(201);
    expect((await readJson(created)).data).toMatchObject({
      name: "מוצר — Product",
      description: "Line one\r\nLine two\twith a tab",
    });
    // One-line fields take no line break.
    const license = await licenseIn(t, world, { maxMachines: 1 });
    const broken = await post("/api/v1/licenses/activate", {
      key: license.key,
      fingerprint: "fp",
      name: "a\nb",
    });
    expect(broken.status).toBe(422);
    expect((await readJson(broken)).errors).toEqual({
      name: ["The name field must not contain control characters."],
    });
  });
});

describe("the setup page's name (on a server without users)", () => {
  let fresh: TestApp;
  beforeAll(async () => {
    fresh = await startTestApp();
  });
  afterAll(() => fresh?.close());

  test("U+202E, U+2066, NUL, ESC in name → 422 naming name", async () => {
    for (const [, bad] of BAD) {
      const response = await fresh.request("/api/setup", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          code: "x",
          name: `First Admin${bad}`,
          email: "a@example.com",
          password: "long enough!",
        }),
      });
      expect(response.status).toBe(422);
      // The code is refused too (a wrong one); the name on its own ground.
      expect((await readJson(response)).errors.name).toEqual([
        expect.stringMatching(
          /^The name field must not contain (bidirectional control|control|NUL) characters\.$/,
        ),
      ]);
    }
  });
});
