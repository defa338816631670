import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer } from "./helpers/cli.ts";

/**
 * Bun refuses request headers over 16 KiB (431) unless the process starts with a larger limit, and a
 * differential download sends up to 1,000 byte ranges in one Range header. depot as users start it
 * from a checkout (`bin/depot.js`, by its shebang: what `npx depot serve` runs) accepts such a header;
 * the compiled binary carries the same flag (scripts/build.ts, checked by scripts/smoke-binary.sh).
 */

const BIN = join(import.meta.dir, "../bin/depot.js");
const dataDir = mkdtempSync(join(tmpdir(), "depot-header-size-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** What electron-updater sends for 1,000 blocks of a file of about 100 MiB: about 21 KiB. */
const RANGE = `bytes=${Array.from({ length: 1000 }, (_, i) => `${100_000_000 + i * 1000}-${100_000_000 + i * 1000 + 99}`).join(", ")}`;

test("bin/depot.js serve accepts a 1,000-range Range header of 21 KiB (Bun's default stops at 16 KiB)", async () => {
  expect(RANGE.length).toBeGreaterThan(20 * 1024);
  const server = await startServer(
    { DATA_DIR: dataDir, DATABASE_URL: undefined },
    30_000,
    ["serve"],
    [],
    [BIN],
  );
  try {
    const response = await fetch(`${server.url}/api/health`, { headers: { range: RANGE } });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: "ok" });
    // Past the raised limit Bun still refuses, before depot sees the request.
    const huge = await fetch(`${server.url}/api/health`, {
      headers: { range: `${RANGE}${", 1-2".repeat(9000)}` },
    });
    expect(huge.status).toBe(431);
  } finally {
    server.proc.kill();
    await server.proc.exited;
  }
});
