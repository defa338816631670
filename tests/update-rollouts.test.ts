import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { type ReleaseChannel, versions } from "../src/db/schema/index.ts";
import { createLicense } from "../src/features/licenses/service.ts";
import { TTL_MS } from "../src/features/updates/feed-cache.ts";
import { startTestApp, type TestApp } from "./helpers/app.ts";
import { createProduct, createUser, tokenFor } from "./helpers/factories.ts";
import { license, patchRelease, publishRelease } from "./helpers/releases.ts";

/**
 * What the feeds offer as versions move (README, "Updates: channels, drafts, yanks and rollouts"):
 * channels are inclusive, drafts and yanked versions are never offered, and a staged rollout is
 * decided by depot per client (the `x-user-staging-id` electron-updater sends, else the license),
 * the same answer on every poll.
 */

let t: TestApp;
let base: string;
let owner: { id: number };
let ownerToken: string;
const ANY_KEY = { id: 0, creatorId: null };

beforeAll(async () => {
  t = await startTestApp({ jobs: "send" });
  base = t.listen();
  owner = await createUser(t.ctx, { role: "vendor" });
  ownerToken = await tokenFor(t.ctx, owner);
}, 30_000);
afterAll(() => t.close());

/** A product with a holder's key, and a release helper for Windows files. */
async function productWithHolder() {
  const product = await createProduct(t.ctx, owner);
  const holder = await createUser(t.ctx);
  const key = (
    await createLicense(t.ctx, ANY_KEY, {
      ownerId: String(holder.id),
      creatorId: String(owner.id),
      productId: String(product.id),
    })
  ).key;
  const release = (name: string, options: { channel?: ReleaseChannel; status?: "draft" } = {}) =>
    publishRelease(base, ownerToken, product.id, {
      name,
      ...options,
      files: [{ name: `App-${name}.exe`, bytes: randomBytes(64), platform: "windows", arch: "x86_64" }],
    });
  /** The version latest.yml (or `{channel}.yml`) offers, or the status when it offers none. */
  const offered = async (channel = "latest", headers: Record<string, string> = {}) => {
    const response = await fetch(`${base}/updates/${product.id}/electron/${channel}.yml`, {
      headers: { ...license(key), ...headers },
    });
    if (response.status !== 200) return response.status;
    return /^version: "(.*)"$/m.exec(await response.text())?.[1];
  };
  return { product, key, release, offered };
}

describe("channels", () => {
  test("inclusive as in Keygen: stable sees stable, beta sees rc and beta too, dev only dev", async () => {
    const { release, offered } = await productWithHolder();
    await release("1.0.0");
    await release("1.1.0-rc.1");
    await release("1.1.0-beta.3");
    await release("2.0.0-dev.5", { channel: "dev" });
    expect(await offered("latest")).toBe("1.0.0");
    expect(await offered("rc")).toBe("1.1.0-rc.1");
    // rc.1 ranks above beta.3 by semver precedence.
    expect(await offered("beta")).toBe("1.1.0-rc.1");
    expect(await offered("alpha")).toBe("1.1.0-rc.1");
    expect(await offered("dev")).toBe("2.0.0-dev.5");
  });

  test("a version name that is not semver is never offered", async () => {
    const { release, offered } = await productWithHolder();
    await release("1.0.0");
    await release("2024 summer edition");
    expect(await offered()).toBe("1.0.0");
  });
});

describe("drafts and yanks", () => {
  test("a draft is offered only once released; a yanked version never, until it is un-yanked", async () => {
    const { product, key, release, offered } = await productWithHolder();
    expect(await offered()).toBe(404);
    const first = await release("1.0.0", { status: "draft" });
    expect(await offered()).toBe(404);
    await patchRelease(base, ownerToken, product.id, first.id, { status: "published" });
    expect(await offered()).toBe("1.0.0");
    const second = await release("1.0.1");
    expect(await offered()).toBe("1.0.1");
    await patchRelease(base, ownerToken, product.id, second.id, { status: "yanked", yank_reason: "crashes" });
    expect(await offered()).toBe("1.0.0");
    const tauri = await fetch(`${base}/updates/${product.id}/tauri/windows/x86_64/1.0.0`, {
      headers: license(key),
    });
    expect(tauri.status).toBe(204);
    await patchRelease(base, ownerToken, product.id, second.id, { status: "published" });
    expect(await offered()).toBe("1.0.1");
  });
});

describe("caches", () => {
  test("a feed, its refusal and an update check are no-store; a file it names keeps its own private, no-cache", async () => {
    const { product, key, release } = await productWithHolder();
    await release("1.0.0");
    const feed = await fetch(`${base}/updates/${product.id}/electron/latest.yml`, { headers: license(key) });
    expect(feed.status).toBe(200);
    expect(feed.headers.get("cache-control")).toBe("no-store");
    const refused = await fetch(`${base}/updates/${product.id}/electron/latest.yml`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get("cache-control")).toBe("no-store");
    const nothing = await fetch(`${base}/updates/${product.id}/tauri/windows/x86_64/1.0.0`, {
      headers: license(key),
    });
    expect(nothing.status).toBe(204);
    expect(nothing.headers.get("cache-control")).toBe("no-store");
    const file = await fetch(`${base}/updates/${product.id}/files/1.0.0/App-1.0.0.exe`, {
      headers: license(key),
    });
    expect(file.status).toBe(200);
    expect(file.headers.get("cache-control")).toBe("private, no-cache");
    await file.arrayBuffer();
  });
});

describe("precedence, as the database orders the candidates", () => {
  // Ascending by semver precedence (semver.org §11): numeric identifiers by value and below
  // alphanumeric ones, fewer identifiers before more, a release above its pre-releases; a leading v
  // and build metadata do not count.
  const ASCENDING = [
    "1.0.0-alpha",
    "1.0.0-alpha.1",
    "1.0.0-alpha.beta",
    "1.0.0-beta",
    "1.0.0-beta.2",
    "1.0.0-beta.11",
    "1.0.0-rc.1",
    "1.0.0",
    "v1.0.1",
    "1.2.0+build.7",
    "1.10.0-alpha",
    "1.10.0",
    "9.0.0",
    "10.0.0-0",
    "10.0.0-1",
    "10.0.0-2",
    "10.0.0-10",
    "10.0.0-x",
  ];

  test("the highest is offered whatever the order of publishing; yanking each in turn offers the next", async () => {
    const { product, release, offered } = await productWithHolder();
    // Published in an order that is neither the precedence nor its reverse.
    const ids = new Map<string, number>();
    for (const name of ASCENDING.map((_, i) => ASCENDING[(i * 7) % ASCENDING.length] as string)) {
      ids.set(name, (await release(name, { channel: "alpha" })).id);
    }
    expect(ids.size).toBe(ASCENDING.length);
    for (const name of [...ASCENDING].reverse()) {
      expect(await offered("alpha")).toBe(name.replace(/^v/, ""));
      await patchRelease(base, ownerToken, product.id, ids.get(name) as number, {
        status: "yanked",
        yank_reason: "next",
      });
    }
    expect(await offered("alpha")).toBe(404);
  });

  test("ten newer versions held back at 0 %: the older one is still found", async () => {
    const { product, release, offered } = await productWithHolder();
    await release("1.0.0");
    for (let minor = 1; minor <= 10; minor++) {
      const held = await release(`1.${minor}.0`);
      await patchRelease(base, ownerToken, product.id, held.id, { rollout_percentage: 0 });
    }
    expect(await offered()).toBe("1.0.0");
  });
});

/** A fresh holder's key of the product. */
async function productKey(productId: number) {
  const user = await createUser(t.ctx);
  return (
    await createLicense(t.ctx, ANY_KEY, {
      ownerId: String(user.id),
      creatorId: String(owner.id),
      productId: String(productId),
    })
  ).key;
}

describe("staged rollouts, decided by depot", () => {
  const CLIENTS = 400;
  const stagingIds = Array.from({ length: CLIENTS }, () => crypto.randomUUID());

  async function rolledOut(percentage: number) {
    const { product, release, offered } = await productWithHolder();
    await release("1.0.0");
    const next = await release("1.1.0");
    await patchRelease(base, ownerToken, product.id, next.id, { rollout_percentage: percentage });
    const answers = new Map<string, string | number | undefined>();
    for (const id of stagingIds) answers.set(id, await offered("latest", { "x-user-staging-id": id }));
    return { answers, offered };
  }

  test("0 % offers the previous version to everyone", async () => {
    const { answers } = await rolledOut(0);
    expect(new Set(answers.values())).toEqual(new Set(["1.0.0"]));
  });

  test("100 % offers the new version to everyone", async () => {
    const { answers } = await rolledOut(100);
    expect(new Set(answers.values())).toEqual(new Set(["1.1.0"]));
  });

  test("50 % offers it to about half of 400 clients, and each client the same answer every time", async () => {
    const { answers, offered } = await rolledOut(50);
    const got = [...answers.values()].filter((version) => version === "1.1.0").length;
    // Binomial(400, 0.5): mean 200, standard deviation 10; ±4.5 σ fails once in ~150,000 runs.
    expect(got).toBeGreaterThanOrEqual(155);
    expect(got).toBeLessThanOrEqual(245);
    expect(new Set(answers.values())).toEqual(new Set(["1.0.0", "1.1.0"]));
    for (const id of stagingIds.slice(0, 40)) {
      expect(await offered("latest", { "x-user-staging-id": id })).toBe(answers.get(id));
    }
  });

  test("without a staging id the license is the cohort: the same key, the same answer", async () => {
    const { product, release } = await productWithHolder();
    await release("1.0.0");
    const next = await release("1.1.0");
    await patchRelease(base, ownerToken, product.id, next.id, { rollout_percentage: 50 });
    const keys = await Promise.all(Array.from({ length: 20 }, () => productKey(product.id)));
    const versionFor = async (key: string) => {
      const response = await fetch(`${base}/updates/${product.id}/electron/latest.yml`, {
        headers: license(key),
      });
      return /^version: "(.*)"$/m.exec(await response.text())?.[1];
    };
    const first = await Promise.all(keys.map(versionFor));
    // Keys are drawn apart (all 20 on one side: 2 in a million), and each keeps its answer.
    expect(new Set(first)).toEqual(new Set(["1.0.0", "1.1.0"]));
    expect(await Promise.all(keys.map(versionFor))).toEqual(first);
  });
});

describe("a rollout schedule raises the rollout over time", () => {
  const hour = 3_600_000;
  const at = (offset: number) => new Date(Date.now() + offset).toISOString();
  const patch = (productId: number, versionId: number, body: unknown) =>
    fetch(`${base}/api/products/${productId}/versions/${versionId}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${ownerToken}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  test("a step whose time has come counts, one still ahead does not; setting the percentage replaces the schedule", async () => {
    const { product, release, offered } = await productWithHolder();
    await release("1.0.0");
    const next = await release("1.1.0");
    const clients = Array.from({ length: 30 }, () => ({ "x-user-staging-id": crypto.randomUUID() }));
    const answers = () => Promise.all(clients.map((headers) => offered("latest", headers)));

    // Halted now, everyone tomorrow: nobody yet.
    const halted = await patchRelease(base, ownerToken, product.id, next.id, {
      rollout_percentage: 0,
      rollout_schedule: [{ at: at(24 * hour), percentage: 100 }],
    });
    expect(halted.rollout_percentage).toBe(0);
    expect(halted.rollout_schedule).toHaveLength(1);
    expect(halted.rollout_schedule[0].percentage).toBe(100);
    expect(Math.abs(Date.parse(halted.rollout_schedule[0].at) - (Date.now() + 24 * hour))).toBeLessThan(
      60_000,
    );
    expect(new Set(await answers())).toEqual(new Set(["1.0.0"]));

    // Steps given out of order are kept in time order; the one an hour ago (100 %) is reached.
    const raised = await patchRelease(base, ownerToken, product.id, next.id, {
      rollout_schedule: [
        { at: at(24 * hour), percentage: 100 },
        { at: at(-hour), percentage: 100 },
      ],
    });
    expect(raised.rollout_percentage).toBe(0);
    expect(raised.rollout_schedule.map((step: { percentage: number }) => step.percentage)).toEqual([
      100, 100,
    ]);
    expect(Date.parse(raised.rollout_schedule[0].at)).toBeLessThan(Date.parse(raised.rollout_schedule[1].at));
    expect(new Set(await answers())).toEqual(new Set(["1.1.0"]));

    // An empty schedule is none.
    expect(
      (await patchRelease(base, ownerToken, product.id, next.id, { rollout_schedule: [] })).rollout_schedule,
    ).toBeNull();
    expect(new Set(await answers())).toEqual(new Set(["1.0.0"]));
    await patchRelease(base, ownerToken, product.id, next.id, {
      rollout_schedule: [{ at: at(-hour), percentage: 100 }],
    });
    expect(new Set(await answers())).toEqual(new Set(["1.1.0"]));

    // p = 0 by hand halts at once: the schedule goes with it.
    const stopped = await patchRelease(base, ownerToken, product.id, next.id, { rollout_percentage: 0 });
    expect(stopped.rollout_schedule).toBeNull();
    expect(new Set(await answers())).toEqual(new Set(["1.0.0"]));
  });

  test("a step outside 0–100, a time that is not one, or more than 20 steps: 422, nothing changed", async () => {
    const { product, release } = await productWithHolder();
    const version = await release("2.0.0");
    const bad: [unknown, string][] = [
      [[{ at: at(hour), percentage: 101 }], "rollout_schedule.0.percentage"],
      [[{ at: "tomorrow", percentage: 50 }], "rollout_schedule.0.at"],
      [[{ at: at(hour) }], "rollout_schedule.0.percentage"],
      [Array.from({ length: 21 }, (_, i) => ({ at: at(i * hour), percentage: 50 })), "rollout_schedule"],
      ["soon", "rollout_schedule"],
      [null, "rollout_schedule"],
    ];
    for (const [schedule, field] of bad) {
      const response = await patch(product.id, version.id, { rollout_schedule: schedule });
      expect(response.status).toBe(422);
      const body = (await response.json()) as { message: string; errors: Record<string, string[]> };
      expect(Object.keys(body.errors)).toContain(field);
    }
    const current = await fetch(`${base}/api/products/${product.id}/versions/${version.id}`, {
      headers: { authorization: `Bearer ${ownerToken}` },
    });
    const { data } = (await current.json()) as {
      data: { rollout_percentage: number; rollout_schedule: unknown };
    };
    expect(data).toMatchObject({ rollout_percentage: 100, rollout_schedule: null });
  });
});

describe("polls are answered from the process's cache of candidates (feed-cache.ts)", () => {
  test("a row changed behind depot's back is not seen until the TTL; every change through depot at once", async () => {
    const { product, release, offered } = await productWithHolder();
    await release("1.0.0");
    const newest = await release("1.1.0");
    expect(await offered()).toBe("1.1.0");
    // Written around depot (no feedChanged): the cached candidates answer.
    await t.ctx.db.update(versions).set({ status: "yanked" }).where(eq(versions.id, newest.id));
    expect(await offered()).toBe("1.1.0");
    await t.ctx.db.update(versions).set({ status: "published" }).where(eq(versions.id, newest.id));
    // Through the API: the next poll sees each change.
    await patchRelease(base, ownerToken, product.id, newest.id, { status: "yanked", yank_reason: "broken" });
    expect(await offered()).toBe("1.0.0");
    await patchRelease(base, ownerToken, product.id, newest.id, { status: "published" });
    expect(await offered()).toBe("1.1.0");
    await patchRelease(base, ownerToken, product.id, newest.id, { rollout_percentage: 0 });
    expect(await offered()).toBe("1.0.0");
    await patchRelease(base, ownerToken, product.id, newest.id, { rollout_percentage: 100, channel: "beta" });
    expect(await offered()).toBe("1.0.0");
    expect(await offered("beta")).toBe("1.1.0");
    await release("1.2.0");
    expect(await offered()).toBe("1.2.0");
    // A lost notification costs at most the TTL.
    await t.ctx.db.update(versions).set({ status: "yanked" }).where(eq(versions.id, newest.id));
    await Bun.sleep(TTL_MS + 100);
    expect(await offered("beta")).toBe("1.2.0");
  });
});
