import { afterAll, beforeAll, expect, test } from "bun:test";
import { createLicense } from "../src/features/licenses/service.ts";
import { readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { apiKeyFor, createProduct, createUser, tokenFor } from "./helpers/factories.ts";
import { publishRelease } from "./helpers/releases.ts";

/**
 * Names every JavaScript object already has (`constructor`, `__proto__`, …) sent where a client
 * chooses a name: a lookup written as `TABLE[name]` finds a function there instead of nothing
 * (`/updates/1/electron/constructor.yml` once answered 500 and counted a channel named
 * `function Object() { [native code] }`). Every route the app serves gets each name in each path
 * segment and as each query value its document lists, one at a time with the other segments real,
 * then everywhere at once, as the admin, a vendor's API key and a license holder would send them:
 * never a 500.
 */

const NAMES = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"];

let t: TestApp;
let base: string;
const real: Record<string, string> = {};
let headers: Record<string, string>;
let queries: Map<string, string[]>;

beforeAll(async () => {
  t = await startTestApp({ jobs: "send" });
  base = t.listen();
  const admin = await createUser(t.ctx, { role: "admin" });
  const adminToken = await tokenFor(t.ctx, admin);
  const product = await createProduct(t.ctx, admin, { name: "Open Thing", free: true });
  const version = await publishRelease(base, adminToken, product.id, {
    name: "1.0.0",
    files: [{ name: "thing-1.0.0.exe", bytes: new Uint8Array(64), platform: "windows", arch: "x86_64" }],
  });
  const license = await createLicense(
    t.ctx,
    { id: 0, creatorId: null },
    {
      ownerId: String(admin.id),
      creatorId: String(admin.id),
      productId: String(product.id),
    },
  );
  Object.assign(real, {
    product: String(product.id),
    version: String(version.id),
    artifact: String(version.artifacts[0].id),
    file: "thing-1.0.0.exe",
    target: "windows",
    arch: "x86_64",
    current_version: "0.9.0",
    slug: product.slug ?? String(product.id),
    id: license.id,
    license: license.id,
    user: String(admin.id),
  });
  headers = {
    authorization: `Bearer ${adminToken}`,
    "x-api-key": (await apiKeyFor(t.ctx)).key,
    "x-license-key": license.key,
  };
  type Operation = { parameters?: { in: string; name: string }[] };
  const document = (await readJson(await fetch(`${base}/docs/json`))) as {
    paths: Record<string, Record<string, Operation>>;
  };
  queries = new Map();
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const names = (operation.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name);
      queries.set(`${method.toUpperCase()} ${path.replaceAll(/\{([^}]+)\}/g, ":$1")}`, names);
    }
  }
}, 60_000);
afterAll(() => t.close());

/** The URLs to try for one route: each segment a client chooses hostile in turn, then all of them. */
function urlsFor(method: string, path: string): string[] {
  const segments = path.split("/");
  const chosen = segments.flatMap((s, i) => (s.startsWith(":") || s === "*" ? [i] : []));
  const query = queries.get(`${method} ${path}`) ?? [];
  const urls: string[] = [];
  const build = (hostile: Set<number>, name: string, hostileQuery: boolean) => {
    const filled = segments.map((s, i) => {
      if (!chosen.includes(i)) return s;
      if (hostile.has(i)) return encodeURIComponent(name);
      return s === "*" ? "x" : (real[s.slice(1)] ?? "1");
    });
    const search = hostileQuery ? `?${query.map((q) => `${q}=${encodeURIComponent(name)}`).join("&")}` : "";
    return `${base}${filled.join("/")}${search}`;
  };
  for (const name of NAMES) {
    for (const i of chosen) urls.push(build(new Set([i]), name, false));
    // Names inside a segment as updaters send them: `constructor.yml`, `windows-constructor`.
    for (const i of chosen) urls.push(build(new Set([i]), `${name}.yml`, false));
    for (const i of chosen) {
      const segment = segments[i] as string;
      urls.push(build(new Set([i]), `${real[segment.slice(1)] ?? "x"}-${name}`, false));
    }
    if (query.length > 0) urls.push(build(new Set(), name, true));
    urls.push(build(new Set(chosen), name, query.length > 0));
  }
  return [...new Set(urls)];
}

test("no route answers 500 to a name every object has, in any path segment or query value", async () => {
  const failures: string[] = [];
  let requests = 0;
  for (const route of t.app.routes) {
    const method = route.method.toUpperCase();
    if (method === "ALL" || route.path.includes("uploads")) continue; // tus speaks its own protocol
    for (const url of urlsFor(method, route.path)) {
      for (const credentials of [headers, { authorization: `License ${headers["x-license-key"]}` }]) {
        const response = await fetch(url, {
          method,
          headers: { ...credentials, "content-type": "application/json", origin: base },
          body: ["GET", "HEAD", "DELETE", "OPTIONS"].includes(method) ? undefined : "{}",
        });
        requests++;
        await response.arrayBuffer();
        if (response.status >= 500) failures.push(`${method} ${url.slice(base.length)} → ${response.status}`);
      }
    }
  }
  expect(requests).toBeGreaterThan(500);
  expect(failures).toEqual([]);
}, 120_000);
