import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import {
  chmodSync,
  chownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import type { DemoSeed } from "../src/features/demo/seed.ts";
import { bearer, readJson } from "./helpers/app.ts";
import { depot, startServer } from "./helpers/cli.ts";
import { publishedVersion } from "./helpers/publish.ts";

/**
 * DATA_DIR is its user's alone (docs/operators.md: File modes): `depot serve` runs as its own process on real
 * directories; the modes on disk are checked, and another account (`nobody`) tries to reach the
 * database and app.key. These tests run on the embedded database whatever TEST_DATABASE_URL says.
 */
setDefaultTimeout(60_000);

/** Root may change anyone's files and act as `nobody`; without it the other-account checks are skipped. */
const asRoot = process.getuid?.() === 0;
const NOBODY = 65534;

const root = mkdtempSync(join(tmpdir(), "depot-modes-"));
// A parent others may pass through, as /srv or /var/lib are: only DATA_DIR's own mode protects it.
chmodSync(root, 0o755);
const dataDir = join(root, "data");
const pgControl = join(dataDir, "db", "global", "pg_control");
let demo: DemoSeed;

interface Entry {
  path: string;
  type: "directory" | "file" | "socket" | "other";
  mode: number;
}

/** Every entry below `dir` (and `dir` itself as "."), with its permission bits. */
function entriesBelow(dir: string): Entry[] {
  const describe = (full: string): Entry => {
    const stat = lstatSync(full);
    const type = stat.isDirectory()
      ? "directory"
      : stat.isFile()
        ? "file"
        : stat.isSocket()
          ? "socket"
          : "other";
    return { path: relative(dir, full) || ".", type, mode: stat.mode & 0o777 };
  };
  return [
    describe(dir),
    ...readdirSync(dir, { recursive: true, withFileTypes: true }).map((e) =>
      describe(join(e.parentPath, e.name)),
    ),
  ];
}

/** Entries depot itself made (PGlite's files under db/ are PGlite's: 0666, behind DATA_DIR's 0700). */
const depotsOwn = (dir: string) =>
  entriesBelow(dir).filter((e) => !e.path.startsWith("db/") && e.type !== "other");

const privateMode = (e: Entry) => (e.type === "directory" ? 0o700 : 0o600);

/** What `nobody` may do to `path`: `test -r` / `test -w` as that account (exit 0: allowed). */
const nobodyMay = (flag: "-r" | "-w", path: string) =>
  Bun.spawnSync(["runuser", "-u", "nobody", "--", "test", flag, path]).exitCode === 0;

/** The JSON log lines of a stopped server's stdout. */
async function logLines(proc: Bun.Subprocess<"ignore", "pipe", "pipe">) {
  const text = await new Response(proc.stdout).text();
  return text
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function serveOnce(env: Record<string, string>, launcher: string[] = []) {
  const server = await startServer({ LOG_LEVEL: "info", ...env }, 30_000, ["serve"], launcher);
  return {
    ...server,
    async stop() {
      server.proc.kill("SIGTERM");
      expect(await server.proc.exited).toBe(0);
      return logLines(server.proc);
    },
  };
}

beforeAll(async () => {
  const seeded = await depot(["demo:seed", "--json"], { DATA_DIR: dataDir });
  expect(seeded.code).toBe(0);
  demo = JSON.parse(seeded.stdout);
}, 60_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("a new installation", () => {
  test("DATA_DIR is 0700; everything depot writes in it is 0700 (directories) or 0600 (files)", async () => {
    const server = await serveOnce({ DATA_DIR: dataDir });
    try {
      const vera = demo.users.vendors[0]?.token ?? "";
      const bytes = crypto.getRandomValues(new Uint8Array(50_000));
      await publishedVersion(server.url, vera, demo.products[0]?.id ?? 0, { name: "9.0.0", bytes });
      // A resumable upload with its first bytes: STORAGE_DIR/.uploads/<id>.
      const upload = await fetch(`${server.url}/api/uploads`, {
        method: "POST",
        headers: {
          ...bearer(vera),
          "tus-resumable": "1.0.0",
          "upload-length": "10",
          "content-type": "application/offset+octet-stream",
        },
        body: "half",
      });
      expect(upload.status).toBe(201);
      const { id } = (await readJson(upload)).data;

      const entries = depotsOwn(dataDir);
      // What the server wrote is among them: its pid file and socket, the release, the upload.
      expect(entries.map((e) => e.path)).toEqual(
        expect.arrayContaining([
          ".",
          "app.key",
          "db",
          "depot.pid",
          "depot.sock",
          "releases/.incoming",
          `releases/.uploads/${id}`,
          "public/products/ultra-perms/cover.png",
        ]),
      );
      expect(
        entries.filter((e) => e.path.startsWith("releases/products/") && e.type === "file"),
      ).toHaveLength(1);
      expect(entries.filter((e) => e.mode !== privateMode(e))).toEqual([]);
    } finally {
      await server.stop();
    }
  });

  test.if(asRoot)("another account can read and write nothing in it, PGlite's own files included", () => {
    // The database the first start unpacked is 0600; what PGlite has created since (its relation
    // cache, at every start) is open to others by its mode: DATA_DIR's 0700 is what keeps it from them.
    expect(lstatSync(pgControl).mode & 0o777).toBe(0o600);
    const pglitesOwn = join(dataDir, "db", "global", "pg_internal.init");
    expect(lstatSync(pglitesOwn).mode & 0o044).not.toBe(0);
    expect(nobodyMay("-w", pglitesOwn)).toBe(false);
    expect(nobodyMay("-r", pglitesOwn)).toBe(false);
    expect(nobodyMay("-r", join(dataDir, "app.key"))).toBe(false);
    expect(nobodyMay("-r", dataDir)).toBe(false);
  });
});

describe("an installation from before depot kept DATA_DIR private", () => {
  /** The modes such an installation has: directories 0755, PGlite's files 0666, depot's 0644. */
  function loosen(dir: string) {
    for (const e of entriesBelow(dir)) {
      if (e.type === "directory") chmodSync(join(dir, e.path), 0o755);
      else if (e.type === "file") chmodSync(join(dir, e.path), e.path.startsWith("db/") ? 0o666 : 0o644);
    }
  }

  test("is tightened at the next start, which logs it; a start after that walks nothing", async () => {
    loosen(dataDir);
    const loosened = entriesBelow(dataDir).filter((e) => e.type === "directory" || e.type === "file");
    const server = await serveOnce({ DATA_DIR: dataDir });
    const lines = await server.stop();
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: "info",
        msg: "file modes tightened",
        variable: "DATA_DIR",
        path: dataDir,
        directories: loosened.filter((e) => e.type === "directory").length,
        files: loosened.filter((e) => e.type === "file").length,
        duration_ms: expect.any(Number),
      }),
    );
    expect(lines.filter((line) => line.msg === "file modes not tightened")).toEqual([]);
    expect(depotsOwn(dataDir).filter((e) => e.mode !== privateMode(e))).toEqual([]);
    // PGlite's files as they were, too (those it has created since are its own again: 0666).
    expect(lstatSync(pgControl).mode & 0o777).toBe(0o600);

    const again = await serveOnce({ DATA_DIR: dataDir });
    expect((await again.stop()).filter((line) => String(line.msg).startsWith("file modes"))).toEqual([]);
  });

  test("a DATA_DIR that is a symbolic link to the directory is tightened through it", async () => {
    loosen(dataDir);
    const link = join(root, "data-link");
    symlinkSync(dataDir, link);
    const server = await serveOnce({ DATA_DIR: link });
    const lines = await server.stop();
    expect(lines).toContainEqual(expect.objectContaining({ msg: "file modes tightened", path: link }));
    expect(lstatSync(dataDir).mode & 0o777).toBe(0o700);
    expect(depotsOwn(dataDir).filter((e) => e.mode !== privateMode(e))).toEqual([]);
    rmSync(link);
  });

  test.if(asRoot)(
    "a file of another account in it does not stop the start: it is left as it is, and named",
    async () => {
      loosen(dataDir);
      const foreign = join(dataDir, "public", "from-the-operator.png");
      writeFileSync(foreign, "an image");
      chmodSync(foreign, 0o644);
      chownSync(foreign, NOBODY, NOBODY);
      // As a service account runs it: without CAP_FOWNER, another account's file cannot be changed.
      const server = await serveOnce({ DATA_DIR: dataDir }, [
        "setpriv",
        "--inh-caps=-fowner",
        "--bounding-set=-fowner",
      ]);
      const lines = await server.stop();
      expect(lines).toContainEqual(expect.objectContaining({ msg: "file modes tightened", path: dataDir }));
      expect(lines).toContainEqual(
        expect.objectContaining({
          level: "warn",
          msg: "file modes not tightened",
          variable: "DATA_DIR",
          count: 1,
          entries: [{ path: foreign, code: "EPERM" }],
        }),
      );
      expect(lstatSync(foreign).mode & 0o777).toBe(0o644);
      const others = depotsOwn(dataDir).filter((e) => e.path !== relative(dataDir, foreign));
      expect(others.filter((e) => e.mode !== privateMode(e))).toEqual([]);
      expect(lstatSync(pgControl).mode & 0o777).toBe(0o600);
      rmSync(foreign);
    },
  );
});

describe("STORAGE_DIR and PUBLIC_DIR outside DATA_DIR", () => {
  test("STORAGE_DIR is kept private as DATA_DIR is; PUBLIC_DIR is left as the operator made it", async () => {
    const place = join(root, "elsewhere");
    const storageDir = join(place, "releases");
    const publicDir = join(place, "images");
    for (const dir of [storageDir, publicDir]) mkdirSync(dir, { recursive: true, mode: 0o755 });
    writeFileSync(join(storageDir, "left-by-an-old-depot"), "x", { mode: 0o644 });
    writeFileSync(join(publicDir, "logo.png"), "png", { mode: 0o644 });
    chmodSync(storageDir, 0o755);
    chmodSync(publicDir, 0o755);
    const env = { DATA_DIR: join(place, "data"), STORAGE_DIR: storageDir, PUBLIC_DIR: publicDir };
    const server = await serveOnce(env);
    try {
      // Product images are public: /storage/ serves them to anyone, and another server may too.
      const logo = await fetch(`${server.url}/storage/logo.png`);
      expect(logo.status).toBe(200);
      expect(await logo.text()).toBe("png");
    } finally {
      const lines = await server.stop();
      expect(lines).toContainEqual(
        expect.objectContaining({ msg: "file modes tightened", variable: "STORAGE_DIR", path: storageDir }),
      );
      expect(lines.filter((line) => line.variable === "PUBLIC_DIR")).toEqual([]);
    }
    expect(entriesBelow(storageDir).filter((e) => e.mode !== privateMode(e))).toEqual([]);
    expect(lstatSync(join(place, "data")).mode & 0o777).toBe(0o700);
    expect(entriesBelow(publicDir).map((e) => [e.path, e.mode])).toEqual([
      [".", 0o755],
      ["logo.png", 0o644],
    ]);
  });
});
