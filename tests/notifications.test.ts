import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type AddressInfo, createServer, type Socket } from "node:net";
import { sql } from "drizzle-orm";
import type { ParsedMail } from "mailparser";
// mailparser 3.9.31 is pinned: 3.9.36 and later need an @zone-eu/mailsplit the registry here does not serve.
import { selectRows } from "../src/db/rows.ts";
import { licenses } from "../src/db/schema/index.ts";
import { generateLicenseKey } from "../src/features/licenses/keys.ts";
import { notifyHolders } from "../src/features/notifications/fan-out.ts";
import { bearer, readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import {
  apiKeyFor,
  createBenefit,
  createOption,
  createProduct,
  createPurchase,
  createUser,
  insertVersionRow,
  tokenFor,
} from "./helpers/factories.ts";
import { type Inbox, type Received, startInbox, until } from "./helpers/inbox.ts";

/**
 * Holder notifications (README, Notifications): the fan-out of a published version to in-app notifications
 * and e-mails, through a listening server, pg-boss workers and a real SMTP server on loopback.
 */

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SIGNED =
  /^http:\/\/depot\.test\/api\/products\/\d+\/versions\/\d+\/download\?user=\d+&expires=\d+&signature=[0-9a-f]{64}$/;
const MAIL_FROM = "Depot Releases <releases@depot.test>";
const DAY_S = 24 * 60 * 60;

// --- a mail relay that never answers ---------------------------------------------------------------

/** A server that accepts SMTP connections and never says a word (a hung mail relay). */
async function startSilentServer() {
  const sockets = new Set<Socket>();
  let connections = 0;
  const server = createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on("error", () => {});
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    /** Connections still open: the client has not given up yet. */
    open: () => sockets.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

// --- helpers ------------------------------------------------------------------------------------

interface JobRow {
  id: string;
  state: string;
  retry_count: number;
  output: unknown;
}

const emailJobsOf = (app: TestApp, versionId: number) =>
  selectRows<JobRow>(
    app.ctx.db,
    sql`SELECT j.id::text AS id, j.state::text AS state, j.retry_count, j.output
        FROM pgboss.job j JOIN notifications n ON n.id = j.id
        WHERE j.name = 'notification.email' AND n.version_id = ${versionId}
        ORDER BY j.id`,
  );

const countOf = async (app: TestApp, query: ReturnType<typeof sql>) =>
  (await selectRows<{ count: number }>(app.ctx.db, query))[0]?.count ?? -1;

/**
 * Waits until the version's fan-out job completed and, when `emails` is set, every e-mail job of it
 * did too: after that nothing more will arrive for this version.
 */
async function settled(app: TestApp, versionId: number, emails = true) {
  await until(`the fan-out of version ${versionId}`, async () => {
    const [job] = await selectRows<{ state: string }>(
      app.ctx.db,
      sql`SELECT state::text AS state FROM pgboss.job
          WHERE name = 'version.published' AND (data->>'version_id')::bigint = ${versionId}`,
    );
    return job?.state === "completed";
  });
  if (!emails) return;
  await until(`the e-mails of version ${versionId}`, async () =>
    (await emailJobsOf(app, versionId)).every((job) => job.state === "completed"),
  );
}

function releaseForm(fields: Record<string, string>, bytes: Uint8Array) {
  const body = new FormData();
  for (const [key, value] of Object.entries(fields)) body.append(key, value);
  body.append("file", new File([bytes], "plugin.jar", { type: "application/java-archive" }));
  return body;
}

/** Publishes through the listening server (multipart) and returns the version's JSON. */
async function publish(
  base: string,
  token: string,
  path: string,
  fields: Record<string, string>,
  bytes = new TextEncoder().encode(`release ${crypto.randomUUID()}`),
) {
  const response = await fetch(`${base}${path}`, {
    method: "POST",
    headers: bearer(token),
    body: releaseForm(fields, bytes),
  });
  expect(response.status).toBe(201);
  return (await readJson(response)).data as { id: number; version_number: string };
}

async function grantLicense(
  app: TestApp,
  user: { id: number },
  product: { id: number },
  creator: { id: number },
  extra: { expires?: Date; revokedAt?: Date } = {},
): Promise<string> {
  const id = Bun.randomUUIDv7();
  await app.ctx.db.insert(licenses).values({
    id,
    key: generateLicenseKey(),
    userId: user.id,
    creatorId: creator.id,
    productId: product.id,
    maxIps: 1,
    ...extra,
  });
  return id;
}

const listOf = async (base: string, token: string, query = "") => {
  const response = await fetch(`${base}/api/notifications${query}`, { headers: bearer(token) });
  expect(response.status).toBe(200);
  return readJson(response);
};

const messagesTo = (inbox: Inbox, address: string) =>
  inbox.messages.filter((m) => m.envelopeTo.includes(address));

const htmlOf = (mail: ParsedMail) => (typeof mail.html === "string" ? mail.html : "");

// --- the main app: an accepting SMTP server, workers running ----------------------------------------

let t: TestApp;
let base: string;
let inbox: Inbox;
let owner: { id: number };
let ownerToken: string;
let product: { id: number; name: string };

type Person = { user: { id: number; email: string; name: string }; token: string };
const people: Record<"live" | "expired" | "revoked" | "none" | "elsewhere", Person> = {} as never;

beforeAll(async () => {
  inbox = await startInbox();
  t = await startTestApp({
    env: { SMTP_URL: `smtp://127.0.0.1:${inbox.port}`, MAIL_FROM },
    jobs: "workers",
  });
  base = t.listen();
  owner = await createUser(t.ctx, { role: "vendor" });
  ownerToken = await tokenFor(t.ctx, owner);
  product = await createProduct(t.ctx, owner, { name: "Ultra Perms" });
  const other = await createProduct(t.ctx, owner);
  for (const name of ["live", "expired", "revoked", "none", "elsewhere"] as const) {
    const user = await createUser(t.ctx, { name: `Holder ${name}` });
    people[name] = { user, token: await tokenFor(t.ctx, user) };
  }
  await grantLicense(t, people.live.user, product, owner, {
    expires: new Date(Date.now() + 30 * DAY_S * 1000),
  });
  await grantLicense(t, people.expired.user, product, owner, { expires: new Date(Date.now() - 60_000) });
  await grantLicense(t, people.revoked.user, product, owner, { revokedAt: new Date() });
  await grantLicense(t, people.elsewhere.user, other, owner);
}, 30_000);
afterAll(async () => {
  await t.close();
  await inbox.close();
}, 15_000);

describe("publishing a version notifies its holders", () => {
  const bytes = new TextEncoder().encode(`ultra-perms-2.0.0 ${crypto.randomUUID()}`);
  const changelog = "## New\n\n- A **web editor** for groups\n- Faster `/lp` lookups";
  let version: { id: number; version_number: string };

  beforeAll(async () => {
    version = await publish(
      base,
      ownerToken,
      `/api/products/${product.id}/versions`,
      { version_name: "2.0.0", title: "Web editor", changelog },
      bytes,
    );
    await settled(t, version.id);
  }, 30_000);

  test("exactly the live holder gets one notification, typed as designed", async () => {
    const body = await listOf(base, people.live.token);
    expect(body.data).toHaveLength(1);
    const [notification] = body.data;
    expect(notification).toEqual({
      id: expect.stringMatching(UUID),
      type: "version.published",
      data: {
        product_id: product.id,
        product_name: "Ultra Perms",
        version_id: version.id,
        version_number: "2.0.0",
        title: "Web editor",
        benefit_name: null,
        download_url: expect.stringMatching(SIGNED),
      },
      read_at: null,
      created_at: expect.stringMatching(ISO),
    });
    const expires = Number(new URL(notification.data.download_url).searchParams.get("expires"));
    expect(Math.abs(expires - (Date.now() / 1000 + 7 * DAY_S))).toBeLessThan(120);
    // Issued to its reader: using it checks that they may still download.
    expect(new URL(notification.data.download_url).searchParams.get("user")).toBe(
      String(people.live.user.id),
    );

    for (const name of ["expired", "revoked", "none", "elsewhere"] as const) {
      expect((await listOf(base, people[name].token)).data).toEqual([]);
    }
  });

  test("the signed download link works without any token", async () => {
    const [notification] = (await listOf(base, people.live.token)).data;
    const signed = new URL(notification.data.download_url);
    const response = await fetch(`${base}${signed.pathname}${signed.search}`);
    expect(response.status).toBe(200);
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(bytes);

    signed.searchParams.set("signature", "0".repeat(64));
    expect((await fetch(`${base}${signed.pathname}${signed.search}`)).status).toBe(403);
  });

  test("one e-mail reaches the live holder: sender, subject, both parts, the signed link", async () => {
    const [notification] = (await listOf(base, people.live.token)).data;
    const link: string = notification.data.download_url;
    const mails = messagesTo(inbox, people.live.user.email);
    expect(mails).toHaveLength(1);
    const [{ mail, envelopeFrom }] = mails as [Received];
    expect(envelopeFrom).toBe("releases@depot.test");
    expect(mail.from?.value).toEqual([{ name: "Depot Releases", address: "releases@depot.test" }]);
    const to = Array.isArray(mail.to) ? mail.to[0] : mail.to;
    expect(to?.value).toEqual([{ name: "Holder live", address: people.live.user.email }]);
    expect(mail.subject).toBe("Ultra Perms 2.0.0: Web editor");

    // The text part: the changelog as written, the link verbatim.
    expect(mail.text).toContain("Ultra Perms 2.0.0 is out: Web editor");
    expect(mail.text).toContain(changelog);
    expect(mail.text).toContain(link);

    // The HTML part: the markdown rendered, the link as an (escaped) href.
    const html = htmlOf(mail);
    expect(html).toContain("Ultra Perms 2.0.0: Web editor");
    expect(html).toContain("<h2>New</h2>");
    expect(html).toContain("<strong>web editor</strong>");
    expect(html).toContain("<code>/lp</code>");
    expect(html).toContain(`href="${link.replaceAll("&", "&amp;")}"`);

    for (const name of ["expired", "revoked", "none", "elsewhere"] as const) {
      expect(messagesTo(inbox, people[name].user.email)).toEqual([]);
    }
  });
});

describe("changelogs in the e-mail", () => {
  test("an HTML changelog: kept in the HTML part without its <script>, tag-stripped in the text", async () => {
    const version = await publish(base, ownerToken, `/api/products/${product.id}/versions`, {
      version_name: "2.0.1",
      title: "Fixes & <cleanup>",
      changelog_format: "html",
      changelog:
        '<p>Fixed <em>grants</em> &amp; roles</p><script>alert("owned")</script><ul><li>one</li><li>two</li></ul>',
    });
    await settled(t, version.id);
    const [received] = messagesTo(inbox, people.live.user.email).filter((m) =>
      m.mail.subject?.includes("2.0.1"),
    ) as [Received];
    const { mail } = received;
    expect(mail.subject).toBe("Ultra Perms 2.0.1: Fixes & <cleanup>");
    const html = htmlOf(mail);
    expect(html).toContain("<p>Fixed <em>grants</em> &amp; roles</p>");
    expect(html).toContain("<li>one</li><li>two</li>");
    expect(html).toContain("Fixes &amp; &lt;cleanup&gt;");
    expect(html).not.toContain("<script");
    expect(html).not.toContain("owned");
    expect(mail.text).toContain("Fixed grants & roles");
    expect(mail.text).toContain("- one\n- two");
    const textChangelog = mail.text?.split("Changelog:")[1]?.split("Download:")[0] ?? "";
    expect(textChangelog.trim()).toBe("Fixed grants & roles\n\n- one\n- two");
    expect(mail.text).not.toContain("owned");
  }, 30_000);

  test("raw HTML inside a markdown changelog is sanitised in the HTML part", async () => {
    const version = await publish(base, ownerToken, `/api/products/${product.id}/versions`, {
      version_name: "2.0.2",
      title: "Markdown with HTML",
      changelog: '**Bold** <img src="https://cdn.test/x.png" onerror="steal()"> <script>steal()</script>',
    });
    await settled(t, version.id);
    const [{ mail }] = messagesTo(inbox, people.live.user.email).filter((m) =>
      m.mail.subject?.includes("2.0.2"),
    ) as [Received];
    const html = htmlOf(mail);
    expect(html).toContain("<strong>Bold</strong>");
    expect(html).toContain('<img src="https://cdn.test/x.png" />');
    expect(html).not.toContain("onerror");
    expect(html).not.toContain("<script");
  }, 30_000);
  test("a changelog stored before links to depot were refused is shown without them", async () => {
    // Written straight to the table, as an older depot stored it; the fan-out then runs as usual.
    const { version: row } = await insertVersionRow(
      t.ctx,
      {
        productId: product.id,
        versionNumber: "2.0.3",
        title: "Old row",
        changelog: "![shot](/api/products/1/versions/5/download) [site](https://example.com/)",
        changelogFormat: "markdown",
      },
      { fileName: "old.jar", contentType: "application/java-archive", storageKey: "old.jar" },
    );
    await notifyHolders(t.ctx, row.id);
    const oldRowMail = () =>
      messagesTo(inbox, people.live.user.email).find((m) => m.mail.subject?.includes("2.0.3"));
    const { mail } = (await until("the e-mail of the old row", async () => oldRowMail())) as Received;
    const html = htmlOf(mail);
    expect(html).toContain('<img alt="shot" />');
    expect(html).toContain('<a href="https://example.com/">site</a>');
    expect(html).not.toContain("/versions/5/download");
  }, 30_000);
});

describe("benefit versions", () => {
  test("notify only holders who bought the benefit's option, and name the benefit", async () => {
    const option = await createOption(t.ctx, product);
    const benefit = await createBenefit(t.ctx, { id: option.id, productId: product.id });
    const buyer = await createUser(t.ctx);
    const plainHolder = await createUser(t.ctx);
    const otherOptionHolder = await createUser(t.ctx);
    const buyerWithoutLicense = await createUser(t.ctx);
    for (const user of [buyer, plainHolder, otherOptionHolder]) await grantLicense(t, user, product, owner);
    await createPurchase(t.ctx, buyer, product, { option_id: option.id });
    await createPurchase(t.ctx, plainHolder, product);
    await createPurchase(t.ctx, otherOptionHolder, product, {
      option_id: (await createOption(t.ctx, product)).id,
    });
    await createPurchase(t.ctx, buyerWithoutLicense, product, { option_id: option.id });

    const version = await publish(
      base,
      ownerToken,
      `/api/products/${product.id}/benefits/${benefit.id}/versions`,
      {
        version_name: "2.1.0-gold",
        title: "Gold perks",
        changelog: "Only for gold.",
      },
    );
    await settled(t, version.id);

    const rows = await selectRows<{ user_id: number }>(
      t.ctx.db,
      sql`SELECT user_id::int AS user_id FROM notifications WHERE version_id = ${version.id}`,
    );
    expect(rows.map((r) => r.user_id)).toEqual([buyer.id]);
    // The product's ordinary holders hear nothing of it either.
    expect(
      await countOf(
        t,
        sql`SELECT count(*)::int AS count FROM notifications WHERE version_id = ${version.id} AND user_id = ${people.live.user.id}`,
      ),
    ).toBe(0);

    const [notification] = (await listOf(base, await tokenFor(t.ctx, buyer))).data;
    expect(notification.data.benefit_name).toBe(benefit.name);
    expect(notification.data.version_number).toBe("2.1.0-gold");

    const mails = inbox.messages.filter((m) => m.mail.subject?.includes("2.1.0-gold"));
    expect(mails.map((m) => m.envelopeTo)).toEqual([[buyer.email]]);
    const [{ mail }] = mails as [Received];
    expect(mail.text).toContain(benefit.name);
    expect(htmlOf(mail)).toContain(Bun.escapeHTML(benefit.name));
  }, 30_000);
});

describe("idempotency", () => {
  test("running the fan-out twice more adds no notification, no e-mail job and no e-mail", async () => {
    const version = await publish(base, ownerToken, `/api/products/${product.id}/versions`, {
      version_name: "2.2.0",
      title: "Twice",
      changelog: "Same again.",
    });
    await settled(t, version.id);
    const notificationCount = () =>
      countOf(t, sql`SELECT count(*)::int AS count FROM notifications WHERE version_id = ${version.id}`);
    const emailJobCount = () =>
      countOf(t, sql`SELECT count(*)::int AS count FROM pgboss.job WHERE name = 'notification.email'`);
    const before = { notifications: await notificationCount(), jobs: await emailJobCount() };
    const jobsOfVersion = await emailJobsOf(t, version.id);
    expect(before.notifications).toBeGreaterThan(0);
    expect(jobsOfVersion).toHaveLength(before.notifications);

    await notifyHolders(t.ctx, version.id);
    await notifyHolders(t.ctx, version.id);

    expect(await notificationCount()).toBe(before.notifications);
    expect(await emailJobCount()).toBe(before.jobs);
    expect(await emailJobsOf(t, version.id)).toEqual(jobsOfVersion);
    await Bun.sleep(500);
    const mails = inbox.messages.filter((m) => m.mail.subject?.includes("2.2.0"));
    expect(mails).toHaveLength(before.notifications);
    expect(new Set(mails.map((m) => m.envelopeTo.join())).size).toBe(before.notifications);
  }, 30_000);
});

describe("a notification's link is its user's, checked again on every use", () => {
  const bytes = new TextEncoder().encode(`revocable ${crypto.randomUUID()}`);
  let customer: Person;
  let vendorToken: string;
  let own: { id: number };
  let licenseIds: string[];
  let link: URL;
  const onServer = (url: URL) => `${base}${url.pathname}${url.search}`;

  beforeAll(async () => {
    const vendor = await createUser(t.ctx, { role: "vendor" });
    vendorToken = await tokenFor(t.ctx, vendor);
    own = await createProduct(t.ctx, vendor);
    const user = await createUser(t.ctx, { name: "Two Licenses" });
    customer = { user, token: await tokenFor(t.ctx, user) };
    licenseIds = [await grantLicense(t, user, own, vendor), await grantLicense(t, user, own, vendor)];
    const version = await publish(
      base,
      vendorToken,
      `/api/products/${own.id}/versions`,
      { version_name: "5.0.0", title: "Revocable", changelog: "-" },
      bytes,
    );
    await settled(t, version.id);
    const [notification] = (await listOf(base, customer.token)).data;
    link = new URL(notification.data.download_url);
  }, 30_000);

  const apiKeyRevokes = async (licenseId: string) => {
    const { key } = await apiKeyFor(t.ctx);
    const response = await fetch(`${base}/api/v1/licenses/${licenseId}`, {
      method: "DELETE",
      headers: { "x-api-key": key },
    });
    expect(response.status).toBe(204);
  };

  test("the e-mail carries the same link, naming its user", async () => {
    expect(link.searchParams.get("user")).toBe(String(customer.user.id));
    const [received] = messagesTo(inbox, customer.user.email) as [Received];
    expect(received.mail.text).toContain(link.toString());
  });

  test("it downloads while the user holds a license; a changed user is a bad signature", async () => {
    const response = await fetch(onServer(link));
    expect(response.status).toBe(200);
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(bytes);

    // The product's owner may download, but the link was not issued to them.
    const edited = new URL(link);
    edited.searchParams.set("user", String(owner.id));
    const refused = await fetch(onServer(edited));
    expect(refused.status).toBe(403);
    expect(refused.headers.get("content-type")).toStartWith("application/json");
    expect(await readJson(refused)).toEqual({ message: "Invalid signature." });
  });

  test("revoking one license leaves the other; revoking both → 403; deleting the product → 404", async () => {
    await apiKeyRevokes(licenseIds[0] as string);
    expect((await fetch(onServer(link))).status).toBe(200);

    await apiKeyRevokes(licenseIds[1] as string);
    const revoked = await fetch(onServer(link));
    expect(revoked.status).toBe(403);
    expect(revoked.headers.get("content-type")).toStartWith("application/json");
    expect(await readJson(revoked)).toEqual({
      message: "The user this link was issued to may no longer download this version.",
    });
    // As the user's own token is refused.
    const byToken = await fetch(onServer(new URL(link.pathname, base)), { headers: bearer(customer.token) });
    expect(byToken.status).toBe(403);

    const adminToken = await tokenFor(t.ctx, await createUser(t.ctx, { role: "admin" }));
    const deleted = await fetch(`${base}/api/admin/products/${own.id}`, {
      method: "DELETE",
      headers: bearer(adminToken),
    });
    expect(deleted.status).toBe(204);
    const gone = await fetch(onServer(link));
    expect(gone.status).toBe(404);
    expect(await readJson(gone)).toEqual({ message: "Product not found." });
  });
});

describe("the notifications API", () => {
  let reader: Person;
  let stranger: Person;
  let ids: string[] = [];

  beforeAll(async () => {
    const vendor = await createUser(t.ctx, { role: "vendor" });
    const vendorToken = await tokenFor(t.ctx, vendor);
    const own = await createProduct(t.ctx, vendor);
    const user = await createUser(t.ctx);
    reader = { user, token: await tokenFor(t.ctx, user) };
    const strangerUser = await createUser(t.ctx);
    stranger = { user: strangerUser, token: await tokenFor(t.ctx, strangerUser) };
    await grantLicense(t, reader.user, own, vendor);
    await grantLicense(t, stranger.user, own, vendor);
    for (const name of ["1.0.0", "1.1.0", "1.2.0"]) {
      const version = await publish(base, vendorToken, `/api/products/${own.id}/versions`, {
        version_name: name,
        title: `Release ${name}`,
        changelog: "-",
      });
      await settled(t, version.id, false);
    }
    const { data } = await listOf(base, reader.token);
    ids = data.map((n: { id: string }) => n.id);
  }, 30_000);

  test("newest first, simple pagination", async () => {
    expect(ids).toHaveLength(3);
    const first = await listOf(base, reader.token, "?per_page=2");
    expect(first.data.map((n: { data: { version_number: string } }) => n.data.version_number)).toEqual([
      "1.2.0",
      "1.1.0",
    ]);
    expect(first.links).toEqual({
      first: "http://depot.test/api/notifications?per_page=2&page=1",
      last: null,
      prev: null,
      next: "http://depot.test/api/notifications?per_page=2&page=2",
    });
    expect(first.meta).toEqual({
      current_page: 1,
      from: 1,
      path: "http://depot.test/api/notifications",
      per_page: 2,
      to: 2,
    });
    const second = await listOf(base, reader.token, "?per_page=2&page=2");
    expect(second.data.map((n: { data: { version_number: string } }) => n.data.version_number)).toEqual([
      "1.0.0",
    ]);
    expect(second.links.next).toBeNull();
    expect(second.links.prev).toBe("http://depot.test/api/notifications?per_page=2&page=1");
    expect(second.meta).toMatchObject({ current_page: 2, from: 3, to: 3 });

    const bad = await fetch(`${base}/api/notifications?page=0`, { headers: bearer(reader.token) });
    expect(bad.status).toBe(422);
    const badUnread = await fetch(`${base}/api/notifications?unread=maybe`, {
      headers: bearer(reader.token),
    });
    expect(badUnread.status).toBe(422);
    expect((await readJson(badUnread)).errors).toHaveProperty("unread");
  });

  test("POST /{id}/read sets read_at once; ?unread=1 leaves it out", async () => {
    const id = ids[1] as string;
    const response = await fetch(`${base}/api/notifications/${id}/read`, {
      method: "POST",
      headers: bearer(reader.token),
    });
    expect(response.status).toBe(200);
    const { data } = await readJson(response);
    expect(data.id).toBe(id);
    expect(data.read_at).toMatch(ISO);

    // Marking it again keeps the first read time.
    const again = await fetch(`${base}/api/notifications/${id.toUpperCase()}/read`, {
      method: "POST",
      headers: bearer(reader.token),
    });
    expect(again.status).toBe(200);
    expect((await readJson(again)).data.read_at).toBe(data.read_at);

    const unread = await listOf(base, reader.token, "?unread=1");
    expect(unread.data.map((n: { id: string }) => n.id)).toEqual([ids[0], ids[2]]);
    expect(unread.data.every((n: { read_at: null }) => n.read_at === null)).toBe(true);
    expect((await listOf(base, reader.token, "?unread=0")).data).toHaveLength(3);
  });

  test("someone else's notification, an unknown id and a non-uuid are all 404", async () => {
    const [theirs] = (await listOf(base, stranger.token)).data;
    expect(theirs).toBeDefined();
    for (const id of [theirs.id, crypto.randomUUID(), "not-a-uuid", "1"]) {
      const response = await fetch(`${base}/api/notifications/${id}/read`, {
        method: "POST",
        headers: bearer(reader.token),
      });
      expect(response.status).toBe(404);
      expect(await readJson(response)).toEqual({ message: "Notification not found." });
    }
    // The stranger's own notification stayed unread.
    expect((await listOf(base, stranger.token)).data[0].read_at).toBeNull();
  });

  test("POST /read-all marks the rest, counts them, and touches nobody else's", async () => {
    const strangerUnread = (await listOf(base, stranger.token, "?unread=1")).data.length;
    expect(strangerUnread).toBe(3);
    const response = await fetch(`${base}/api/notifications/read-all`, {
      method: "POST",
      headers: bearer(reader.token),
    });
    expect(response.status).toBe(200);
    expect(await readJson(response)).toEqual({ data: { marked: 2 } });
    expect((await listOf(base, reader.token, "?unread=1")).data).toEqual([]);
    expect(
      (await listOf(base, reader.token)).data.every((n: { read_at: string }) => ISO.test(n.read_at)),
    ).toBe(true);
    const twice = await fetch(`${base}/api/notifications/read-all`, {
      method: "POST",
      headers: bearer(reader.token),
    });
    expect(await readJson(twice)).toEqual({ data: { marked: 0 } });
    expect((await listOf(base, stranger.token, "?unread=1")).data).toHaveLength(strangerUnread);
  });

  test("without a token: 401", async () => {
    expect((await fetch(`${base}/api/notifications`)).status).toBe(401);
    expect((await fetch(`${base}/api/notifications/read-all`, { method: "POST" })).status).toBe(401);
    expect((await fetch(`${base}/api/notifications/${ids[0]}/read`, { method: "POST" })).status).toBe(401);
  });
});

// --- SMTP servers that refuse or hang ------------------------------------------------------------

/** A separate app (its own database) whose e-mail goes to `smtpUrl`, with one holder of one product. */
async function appWithHolder(smtpUrl: string) {
  const app = await startTestApp({ env: { SMTP_URL: smtpUrl, MAIL_FROM }, jobs: "workers" });
  const url = app.listen();
  const vendor = await createUser(app.ctx, { role: "vendor" });
  const own = await createProduct(app.ctx, vendor);
  const holder = await createUser(app.ctx);
  await grantLicense(app, holder, own, vendor);
  return {
    app,
    url,
    holder,
    holderToken: await tokenFor(app.ctx, holder),
    publishVersion: async (name: string) =>
      publish(url, await tokenFor(app.ctx, vendor), `/api/products/${own.id}/versions`, {
        version_name: name,
        title: "Retry me",
        changelog: "-",
      }),
  };
}

describe("an SMTP server that refuses", () => {
  let refusing: Inbox;
  let setup: Awaited<ReturnType<typeof appWithHolder>>;

  beforeAll(async () => {
    refusing = await startInbox();
    refusing.refuse = true;
    setup = await appWithHolder(`smtp://127.0.0.1:${refusing.port}`);
  }, 30_000);
  afterAll(async () => {
    await setup.app.close();
    await refusing.close();
  }, 15_000);

  test("the job is retried, the API still answers, and a later attempt delivers exactly once", async () => {
    const { app, url, holder, holderToken } = setup;
    const version = await setup.publishVersion("3.0.0");
    await settled(app, version.id, false);

    // The first attempt was refused: pg-boss holds the job for a retry, with the error as output.
    const [failed] = (await until("a refused attempt", async () => {
      const jobs = await emailJobsOf(app, version.id);
      return jobs[0]?.state === "retry" ? jobs : null;
    })) as [JobRow];
    // pg-boss counts a retry when it claims the job again, so the failed first attempt still reads 0.
    expect(failed.retry_count).toBe(0);
    expect(JSON.stringify(failed.output)).toContain("451");
    expect(refusing.refused).toContain(holder.email);
    expect(refusing.messages).toEqual([]);

    // The HTTP API is unaffected, the in-app notification is there.
    const list = await listOf(url, holderToken);
    expect(list.data).toHaveLength(1);
    expect((await fetch(`${url}/api/health`)).status).toBe(200);

    // The server recovers; rather than wait out the backoff, the retry is made due now.
    refusing.refuse = false;
    await app.ctx.db.execute(sql`UPDATE pgboss.job SET start_after = now() WHERE id = ${failed.id}::uuid`);
    await until("the retried e-mail", async () => refusing.messages.length > 0);
    const [done] = (await until("the job to complete", async () => {
      const jobs = await emailJobsOf(app, version.id);
      return jobs[0]?.state === "completed" ? jobs : null;
    })) as [JobRow];
    expect(done.retry_count).toBe(1);
    expect(refusing.messages.map((m) => m.envelopeTo)).toEqual([[holder.email]]);
    expect(refusing.messages[0]?.mail.subject).toContain("3.0.0: Retry me");
  }, 30_000);
});

describe("an SMTP server that accepts the connection and never answers", () => {
  let silent: Awaited<ReturnType<typeof startSilentServer>>;
  let setup: Awaited<ReturnType<typeof appWithHolder>>;

  beforeAll(async () => {
    silent = await startSilentServer();
    // Short timeouts through the URL's query (they override the mailer's defaults) keep the test fast.
    setup = await appWithHolder(
      `smtp://127.0.0.1:${silent.port}?connectionTimeout=2000&greetingTimeout=1500&socketTimeout=5000`,
    );
  }, 30_000);
  afterAll(async () => {
    await setup.app.close();
    await silent.close();
  }, 15_000);

  test("the send times out and the job is retried; the API answers meanwhile", async () => {
    const { app, url, holderToken } = setup;
    const version = await setup.publishVersion("4.0.0");
    await settled(app, version.id, false);
    await until("the worker to connect", async () => silent.connections() > 0);

    // While the worker still waits on the silent server, requests are served as usual.
    expect((await listOf(url, holderToken)).data).toHaveLength(1);
    expect((await fetch(`${url}/api/health`)).status).toBe(200);
    expect(silent.open()).toBe(1);

    const [failed] = (await until("a timed-out attempt", async () => {
      const jobs = await emailJobsOf(app, version.id);
      return jobs[0]?.state === "retry" ? jobs : null;
    })) as [JobRow];
    expect(failed.retry_count).toBe(0);
    expect(JSON.stringify(failed.output).toLowerCase()).toContain("greeting never received");
  }, 30_000);
});
