import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config.ts";
import { TTL_MS } from "../src/features/updates/feed-cache.ts";
import { startServer } from "./helpers/cli.ts";
import { freshDatabase, onPostgres, type TestDatabase } from "./helpers/db.ts";
import { type LicenseWorld, licenseIn, licenseWorld, tokenFor } from "./helpers/factories.ts";
import { license, patchRelease, publishRelease } from "./helpers/releases.ts";

/**
 * Two `depot serve` instances on one PostgreSQL database, as behind a load balancer: each answers
 * update polls from its own cache (feed-cache.ts), and a change made on one reaches the other's next
 * poll through LISTEN/NOTIFY, well within the cache's TTL.
 */

setDefaultTimeout(180_000);
const START_TIMEOUT_MS = 120_000;
/** Far below the TTL: only the notification can have dropped the other instance's cache by then. */
const NOTIFY_WAIT_MS = 300;

let fresh: TestDatabase;
const dirs: string[] = [];
const servers: Awaited<ReturnType<typeof startServer>>[] = [];
let world: LicenseWorld;
const ctx = () => ({ db: fresh.database.db, config: loadConfig({ DATABASE_URL: fresh.url ?? "" }) });

async function instance(args: string[]) {
  const dir = mkdtempSync(join(tmpdir(), "depot-instance-"));
  dirs.push(dir);
  // One installation: both instances share the APP_KEY (it opens the signing key stored in the database).
  const env = {
    DATABASE_URL: fresh.url ?? "",
    DATA_DIR: dir,
    APP_KEY: "feed-cache-test-key-shared-by-both-instances",
  };
  const server = await startServer(env, START_TIMEOUT_MS, args);
  servers.push(server);
  return server.url;
}

beforeAll(async () => {
  if (!onPostgres) return;
  fresh = await freshDatabase();
  world = await licenseWorld(ctx());
});

afterAll(async () => {
  if (!onPostgres) return;
  for (const server of servers) server.proc.kill("SIGKILL");
  await Promise.all(servers.map((server) => server.proc.exited));
  await fresh?.drop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!onPostgres)("two instances on one PostgreSQL database", () => {
  test("a yank and a rollout halt made on A reach B's next poll within a second", async () => {
    expect(NOTIFY_WAIT_MS * 10).toBeLessThan(TTL_MS);
    const a = await instance(["serve"]);
    const b = await instance(["serve", "--no-workers"]);
    const vendorToken = await tokenFor(ctx(), world.creatorA);
    const product = world.productA.id;
    const file = (version: string) => ({
      name: `App-Setup-${version}.exe`,
      bytes: new TextEncoder().encode(`installer ${version}`),
      platform: "windows" as const,
      arch: "x86_64" as const,
    });
    const release = (name: string) => publishRelease(a, vendorToken, product, { name, files: [file(name)] });
    await release("1.0.0");
    const yanked = await release("1.1.0");
    const { key } = await licenseIn({ request: (path, init) => fetch(`${a}${path}`, init) }, world);
    const offeredBy = async (base: string) => {
      const response = await fetch(`${base}/updates/${product}/electron/latest.yml`, {
        headers: license(key),
      });
      expect(response.status).toBe(200);
      return /^version: "([^"]+)"/.exec(await response.text())?.[1];
    };
    // B's cache is warm.
    expect(await offeredBy(b)).toBe("1.1.0");
    expect(await offeredBy(b)).toBe("1.1.0");
    await patchRelease(a, vendorToken, product, yanked.id, {
      status: "yanked",
      yank_reason: "broken installer",
    });
    await Bun.sleep(NOTIFY_WAIT_MS);
    expect(await offeredBy(b)).toBe("1.0.0");
    expect(await offeredBy(a)).toBe("1.0.0");

    const halted = await release("1.2.0");
    await Bun.sleep(NOTIFY_WAIT_MS);
    expect(await offeredBy(b)).toBe("1.2.0");
    await patchRelease(a, vendorToken, product, halted.id, { rollout_percentage: 0 });
    await Bun.sleep(NOTIFY_WAIT_MS);
    expect(await offeredBy(b)).toBe("1.0.0");
    expect(await offeredBy(a)).toBe("1.0.0");
  });
});
