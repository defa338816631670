import { afterAll, describe, expect, test } from "bun:test";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bearer } from "./helpers/app.ts";
import { depot, startServer } from "./helpers/cli.ts";
import { publishedVersion } from "./helpers/publish.ts";

/**
 * What a crash leaves in the release store is swept when `depot serve` starts (and hourly after): a
 * process killed mid-upload leaves a partial file in `.incoming/`, one killed between the rename and
 * the commit a release file no version points at, one killed mid-backup its staging links. Files
 * touched within the last hour (staging links: the last day) are left alone: another instance
 * sharing STORAGE_DIR, or a backup, may be writing them.
 */

const dataDir = mkdtempSync(join(tmpdir(), "depot-leftovers-"));
const incoming = join(dataDir, "releases", ".incoming");
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const twoHoursAgo = () => new Date(Date.now() - 2 * 60 * 60 * 1000);
const age = (path: string, when = twoHoursAgo()) => utimesSync(path, when, when);

describe("crash leftovers", () => {
  test("a partial upload and an orphan release file are swept at start-up; kept and recent files stay", async () => {
    const seeded = await depot(["demo:seed", "--json"], { DATA_DIR: dataDir });
    expect(seeded.code).toBe(0);
    const demo = JSON.parse(seeded.stdout);
    const vendor = demo.users.vendors[0];
    const product = demo.products.find((p: { user_id: number }) => p.user_id === vendor.id);

    // A real release, published and then aged: it must survive every sweep.
    let server = await startServer({ DATA_DIR: dataDir });
    const version = await publishedVersion(server.url, vendor.token, product.id, {
      name: "1.0.0",
      bytes: "kept release bytes",
      fileName: "kept.jar",
    });

    // An upload that never finishes: 1 MiB of its body, then silence, then SIGKILL.
    const boundary = "leftover";
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n\r\n`;
    let sent = false;
    const upload = fetch(`${server.url}/api/products/${product.id}/versions`, {
      method: "POST",
      headers: { ...bearer(vendor.token), "content-type": `multipart/form-data; boundary=${boundary}` },
      body: new ReadableStream({
        async pull(controller) {
          if (sent) return new Promise(() => {}); // never more
          sent = true;
          controller.enqueue(new TextEncoder().encode(head));
          controller.enqueue(new Uint8Array(1024 * 1024).fill(7));
        },
      }),
      duplex: "half",
    } as RequestInit).catch(() => null);
    const partial = await waitFor(() => {
      const [name] = existsSync(incoming) ? readdirSync(incoming) : [];
      return name && statSync(join(incoming, name)).size > 0 ? join(incoming, name) : null;
    });
    server.proc.kill("SIGKILL");
    await server.proc.exited;
    await upload;
    expect(existsSync(partial)).toBe(true);

    // A release file renamed into place whose row never committed.
    const orphanDir = join(dataDir, "releases", "products", String(product.id));
    mkdirSync(orphanDir, { recursive: true });
    const orphan = join(orphanDir, crypto.randomUUID());
    writeFileSync(orphan, "orphan");
    // A temporary file another instance is still writing.
    const recent = join(incoming, crypto.randomUUID());
    writeFileSync(recent, "in progress");
    const keptFile = readdirSync(orphanDir)
      .map((name) => join(orphanDir, name))
      .filter((path) => path !== orphan);
    expect(keptFile).toHaveLength(1);
    for (const path of [partial, orphan, ...keptFile]) age(path);
    // A backup killed two days ago left its links; one two hours old may still be writing its archive.
    const staging = (name: string) => {
      const dir = join(dataDir, "releases", `.backup-${name}`);
      mkdirSync(join(dir, "products"), { recursive: true });
      writeFileSync(join(dir, "products", "linked"), "linked bytes");
      return dir;
    };
    const cutOff = staging("cut-off");
    const running = staging("running");
    age(cutOff, new Date(Date.now() - 2 * 24 * 60 * 60 * 1000));
    age(running);

    server = await startServer({ DATA_DIR: dataDir, LOG_LEVEL: "info" });
    try {
      await waitFor(() => (!existsSync(partial) && !existsSync(orphan) && !existsSync(cutOff) ? true : null));
      expect(existsSync(recent)).toBe(true);
      expect(existsSync(join(running, "products", "linked"))).toBe(true);
      expect(existsSync(keptFile[0] ?? "")).toBe(true);
      const download = await fetch(
        `${server.url}/api/products/${product.id}/versions/${version.id}/download`,
        {
          headers: bearer(vendor.token),
        },
      );
      expect(await download.text()).toBe("kept release bytes");
    } finally {
      server.proc.kill("SIGTERM");
      await server.proc.exited;
    }
    const log = await new Response(server.proc.stdout).text();
    const line = log
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((l) => l.msg === "release leftovers removed");
    expect(line).toMatchObject({ level: "info", temporary: 2, orphans: 1 });
  }, 90_000);
});

async function waitFor<T>(probe: () => T | null | undefined | "" | false, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await Bun.sleep(50);
  }
}
