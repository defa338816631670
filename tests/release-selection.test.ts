// The one rule the update feeds use to choose what a client is offered (features/versions/eligible.ts),
// on a real database: semver names and precedence, channels, platforms, drafts and yanks, and the
// staged rollout with its p = 0, p = 100 and p = 50 anchors.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { artifacts, type NewArtifact, type NewVersion, versions } from "../src/db/schema/index.ts";
import {
  eligibleVersions,
  inRollout,
  newestEligible,
  type ReleaseFilter,
} from "../src/features/versions/eligible.ts";
import { channelOfName, channelsFor, compareSemver, parseSemver } from "../src/features/versions/semver.ts";
import { startTestApp, type TestApp } from "./helpers/app.ts";
import { createProduct, createUser, insertVersionRow } from "./helpers/factories.ts";

let t: TestApp;
let vendorId: number;
beforeAll(async () => {
  t = await startTestApp();
  vendorId = (await createUser(t.ctx, { role: "vendor" })).id;
});
afterAll(() => t.close());

describe("semver", () => {
  test("parses names with a leading v and build metadata; refuses what is not semver", () => {
    expect(parseSemver("1.2.3")).toEqual({ major: 1, minor: 2, patch: 3, prerelease: [] });
    expect(parseSemver("v2.0.0-beta.3+build.7")).toEqual({
      major: 2,
      minor: 0,
      patch: 0,
      prerelease: ["beta", 3],
    });
    for (const name of [
      "1.2",
      "01.2.3",
      "1.2.3-",
      "1.2.3-01",
      "release",
      "",
      "1.2.3.4",
      "v",
      "99999999999999999.0.0",
    ])
      expect(parseSemver(name)).toBeNull();
  });

  test("orders by precedence as semver.org §11 does", () => {
    const order = [
      "1.0.0-alpha",
      "1.0.0-alpha.1",
      "1.0.0-alpha.beta",
      "1.0.0-beta",
      "1.0.0-beta.2",
      "v1.0.0-beta.11",
      "1.0.0-rc.1",
      "1.0.0",
      "1.0.1",
      "1.2.0",
      "1.10.0",
      "2.0.0",
    ];
    const parsed = order.map((name) => parseSemver(name));
    for (let i = 0; i + 1 < parsed.length; i++) {
      const [a, b] = [parsed[i], parsed[i + 1]] as [
        NonNullable<(typeof parsed)[0]>,
        NonNullable<(typeof parsed)[0]>,
      ];
      expect([order[i], compareSemver(a, b)]).toEqual([order[i], -1]);
      expect(compareSemver(b, a)).toBe(1);
    }
    expect(compareSemver(parseSemver("1.0.0+a") as never, parseSemver("v1.0.0+b") as never)).toBe(0);
  });

  test("a name's channel comes from its pre-release tag; channels are inclusive, dev apart", () => {
    expect(
      [
        "1.0.0",
        "2.0.0-beta.3",
        "2.0.0-RC1",
        "2.0.0-rc.2",
        "3.0.0-alpha",
        "3.0.0-nightly.1",
        "3.0.0-42",
        "latest",
      ].map(channelOfName),
    ).toEqual(["stable", "beta", "rc", "rc", "alpha", "dev", "dev", "stable"]);
    expect(channelsFor("stable")).toEqual(["stable"]);
    expect(channelsFor("rc")).toEqual(["stable", "rc"]);
    expect(channelsFor("beta")).toEqual(["stable", "rc", "beta"]);
    expect(channelsFor("alpha")).toEqual(["stable", "rc", "beta", "alpha"]);
    expect(channelsFor("dev")).toEqual(["dev"]);
  });
});

/** A version of `productId` with the given files (default: one file for any platform). */
async function release(
  productId: number,
  name: string,
  fields: Partial<NewVersion> = {},
  files: Partial<NewArtifact>[] = [{}],
) {
  const [first, ...rest] = files;
  const { version, artifact } = await insertVersionRow(
    t.ctx,
    {
      productId,
      versionNumber: name,
      title: name,
      changelog: "c",
      changelogFormat: "markdown",
      channel: channelOfName(name),
      status: "published",
      publishedAt: new Date(),
      publishedBy: vendorId,
      ...fields,
    },
    { fileName: `${name}.bin`, ...first },
  );
  const more = [];
  for (const [i, file] of rest.entries()) {
    const [row] = await t.ctx.db
      .insert(artifacts)
      .values({
        versionId: version.id,
        platform: "any",
        arch: "any",
        fileName: `${name}-${i}.bin`,
        fileSize: 1,
        sha256: "1".repeat(64),
        contentType: "application/octet-stream",
        storageKey: `products/${productId}/${crypto.randomUUID()}`,
        ...file,
      })
      .returning();
    more.push(row);
  }
  return { version, artifacts: [artifact, ...more] };
}

const names = (list: { version: { versionNumber: string } }[]) => list.map((e) => e.version.versionNumber);
const any: ReleaseFilter = { channel: "stable", platform: "any", arch: "any" };

describe("eligibleVersions", () => {
  test("published, semver-named versions of the channels the client takes, highest precedence first", async () => {
    const product = await createProduct(t.ctx, { id: vendorId });
    // Published out of order on purpose: precedence, not publication, decides.
    for (const name of [
      "1.10.0",
      "1.2.0",
      "v1.9.0",
      "2.0.0-beta.1",
      "2.0.0-rc.1",
      "2.0.0-alpha.2",
      "3.0.0-dev.1",
      "2.0",
    ])
      await release(product.id, name);
    await release(product.id, "5.0.0", { status: "draft", publishedAt: null });
    await release(product.id, "4.0.0", { status: "yanked", yankReason: "broken" });
    // A channel set by hand wins over the name: this stable-looking name is only for alpha clients.
    await release(product.id, "1.11.0", { channel: "alpha" });

    const at = async (channel: ReleaseFilter["channel"]) =>
      names(await eligibleVersions(t.ctx, product.id, { ...any, channel }));
    expect(await at("stable")).toEqual(["1.10.0", "v1.9.0", "1.2.0"]);
    expect(await at("rc")).toEqual(["2.0.0-rc.1", "1.10.0", "v1.9.0", "1.2.0"]);
    expect(await at("beta")).toEqual(["2.0.0-rc.1", "2.0.0-beta.1", "1.10.0", "v1.9.0", "1.2.0"]);
    expect(await at("alpha")).toEqual([
      "2.0.0-rc.1",
      "2.0.0-beta.1",
      "2.0.0-alpha.2",
      "1.11.0",
      "1.10.0",
      "v1.9.0",
      "1.2.0",
    ]);
    expect(await at("dev")).toEqual(["3.0.0-dev.1"]);
  });

  test("only versions with a file for the platform and arch; exact files before universal before any", async () => {
    const product = await createProduct(t.ctx, { id: vendorId });
    const win = await release(product.id, "1.0.0", {}, [
      { platform: "windows", arch: "x86_64", fileName: "a.exe" },
    ]);
    const mac = await release(product.id, "1.1.0", {}, [
      { platform: "any", arch: "any", fileName: "notes.txt" },
      { platform: "darwin", arch: "universal", fileName: "App-universal.dmg" },
      { platform: "darwin", arch: "aarch64", fileName: "App-arm64.dmg" },
    ]);
    const linux = await release(product.id, "1.2.0", {}, [
      { platform: "linux", arch: "aarch64", fileName: "a.AppImage" },
    ]);

    const offered = async (platform: ReleaseFilter["platform"], arch: ReleaseFilter["arch"]) =>
      (await eligibleVersions(t.ctx, product.id, { channel: "stable", platform, arch })).map((e) => [
        e.version.versionNumber,
        e.artifacts.map((a) => a.fileName),
      ]);
    expect(await offered("windows", "x86_64")).toEqual([
      ["1.1.0", ["notes.txt"]],
      ["1.0.0", ["a.exe"]],
    ]);
    expect(await offered("darwin", "aarch64")).toEqual([
      ["1.1.0", ["App-arm64.dmg", "App-universal.dmg", "notes.txt"]],
    ]);
    expect(await offered("darwin", "x86_64")).toEqual([["1.1.0", ["App-universal.dmg", "notes.txt"]]]);
    expect(await offered("linux", "x86_64")).toEqual([["1.1.0", ["notes.txt"]]]);
    expect(await offered("linux", "aarch64")).toEqual([
      ["1.2.0", ["a.AppImage"]],
      ["1.1.0", ["notes.txt"]],
    ]);
    expect((await offered("any", "any")).map(([name]) => name)).toEqual(["1.2.0", "1.1.0", "1.0.0"]);
    expect([win.version.id, mac.version.id, linux.version.id].every(Number.isInteger)).toBe(true);
  });

  test("a benefit's versions only when asked for that benefit; nothing for an unknown product", async () => {
    const product = await createProduct(t.ctx, { id: vendorId });
    await release(product.id, "1.0.0");
    expect(names(await eligibleVersions(t.ctx, product.id, any))).toEqual(["1.0.0"]);
    expect(await eligibleVersions(t.ctx, product.id, { ...any, benefitId: 999_999 })).toEqual([]);
    expect(await eligibleVersions(t.ctx, 999_999, any)).toEqual([]);
  });
});

describe("staged rollout", () => {
  const keys = Array.from({ length: 400 }, (_, i) => `staging-id-${i}-${crypto.randomUUID()}`);

  test("p = 0 offers the previous version to everyone, p = 100 the new one", async () => {
    const product = await createProduct(t.ctx, { id: vendorId });
    await release(product.id, "1.0.0");
    const next = await release(product.id, "1.1.0", { rolloutPercentage: 0 });
    const offered = async () =>
      new Set(
        await Promise.all(
          keys
            .slice(0, 50)
            .map(async (key) => (await newestEligible(t.ctx, product.id, any, key))?.version.versionNumber),
        ),
      );
    expect(await offered()).toEqual(new Set(["1.0.0"]));
    await t.ctx.db.update(versions).set({ rolloutPercentage: 100 }).where(eq(versions.id, next.version.id));
    expect(await offered()).toEqual(new Set(["1.1.0"]));
  });

  test("p = 0 with nothing before it offers nothing", async () => {
    const product = await createProduct(t.ctx, { id: vendorId });
    await release(product.id, "1.0.0", { rolloutPercentage: 0 });
    expect(await newestEligible(t.ctx, product.id, any, "anyone")).toBeNull();
  });

  test("p = 50 offers the new version to about half of 400 staging ids, the same answer every time", async () => {
    const product = await createProduct(t.ctx, { id: vendorId });
    await release(product.id, "1.0.0");
    await release(product.id, "1.1.0", { rolloutPercentage: 50 });
    const answers = async () => {
      const out: string[] = [];
      for (const key of keys)
        out.push((await newestEligible(t.ctx, product.id, any, key))?.version.versionNumber ?? "");
      return out;
    };
    const first = await answers();
    const newer = first.filter((name) => name === "1.1.0").length;
    // Binomial(400, 0.5): mean 200, sd 10; ±4 sd fails by chance about once in 16,000 runs.
    expect(newer).toBeGreaterThanOrEqual(160);
    expect(newer).toBeLessThanOrEqual(240);
    expect(first.filter((name) => name !== "1.1.0").every((name) => name === "1.0.0")).toBe(true);
    expect(await answers()).toEqual(first);
  });

  test("inRollout: the anchors, and a fresh draw per version", () => {
    expect(keys.every((key) => inRollout(key, 1, 100) && !inRollout(key, 1, 0))).toBe(true);
    // Raising the percentage only adds clients: whoever was in at 20 % is still in at 60 %.
    const at20 = keys.filter((key) => inRollout(key, 7, 20));
    expect(at20.every((key) => inRollout(key, 7, 60))).toBe(true);
    // Another version draws other clients (not the same first 20 % every time).
    const other = keys.filter((key) => inRollout(key, 8, 20));
    expect(other).not.toEqual(at20);
  });
});
