import { describe, expect, setDefaultTimeout } from "bun:test";
import { eq } from "drizzle-orm";
import { machines } from "../src/db/schema/index.ts";
import { readJson, type TestApp } from "./helpers/app.ts";
import { testOnBothDatabases } from "./helpers/both-databases.ts";
import { licenseIn, licenseWorld } from "./helpers/factories.ts";

/**
 * Issue 32, item 2: a deactivation racing activations (or heartbeats) of the same machine. 16
 * concurrent requests, 1 DELETE and 15 others, several rounds, on both databases. Whatever the order
 * the database chose, no answer may say "alive" for a machine that no longer exists, nor hand out a
 * license file for one, unless it was given before the delete.
 *
 * "Before the delete" is read from the answers themselves: every answer that refreshes a machine
 * writes its heartbeat first (`lastHeartbeatAt`, the database's clock at that write), so answers about
 * the deleted machine given before the delete each carry a heartbeat of their own, later than the one
 * it had when the round began. An answer made from the row read before an UPDATE that matched
 * nothing carries a heartbeat already seen: that is the answer of a machine that was gone.
 */

setDefaultTimeout(120_000);

const ROUNDS = 8;
const RACERS = 15;

interface MachineAnswer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: asserted field by field
  body: any;
}

/** One machine activated on a new one-seat license, ready to be raced. */
async function raceSetup(app: TestApp, url: string, world: Awaited<ReturnType<typeof licenseWorld>>) {
  const license = await licenseIn(app, world, { maxMachines: 1 });
  const first = await fetch(`${url}/api/v1/licenses/activate`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ key: license.key, fingerprint: "raced" }),
  });
  expect(first.status).toBe(201);
  const { machine } = await readJson(first);
  return { license, machine: machine as { id: string; lastHeartbeatAt: string } };
}

/**
 * The round's verdict: every 200/201 answer names a machine that exists now, or the deleted one with
 * a heartbeat written for that answer (distinct from every other, and after the round began).
 */
async function expectNoAnswerForAGoneMachine(
  app: TestApp,
  licenseId: string,
  deleted: { id: string; lastHeartbeatAt: string },
  answers: MachineAnswer[],
) {
  const rows = await app.ctx.db.select().from(machines).where(eq(machines.licenseId, licenseId));
  const existing = new Set(rows.map((row) => row.id));
  expect(existing.has(deleted.id)).toBe(false);
  const alive = answers.filter((a) => a.status === 200 || a.status === 201);
  const heartbeatsOfTheDeleted = [deleted.lastHeartbeatAt];
  for (const answer of alive) {
    expect(answer.body.machine.alive).toBe(true);
    const { id, lastHeartbeatAt } = answer.body.machine;
    if (existing.has(id)) continue;
    expect(id).toBe(deleted.id);
    expect(heartbeatsOfTheDeleted).not.toContain(lastHeartbeatAt);
    expect(Date.parse(lastHeartbeatAt)).toBeGreaterThan(Date.parse(deleted.lastHeartbeatAt));
    heartbeatsOfTheDeleted.push(lastHeartbeatAt);
  }
  // At most the one seat: a single machine made after the delete, if any.
  expect(rows.length).toBeLessThanOrEqual(1);
  expect(alive.filter((a) => a.status === 201).length).toBeLessThanOrEqual(1);
}

const asAnswer = async (response: Response): Promise<MachineAnswer> => ({
  status: response.status,
  body: response.status === 204 ? null : await readJson(response),
});

describe("1 DELETE + 15 activations of the same fingerprint, 8 rounds", () => {
  testOnBothDatabases(
    async (app) => {
      const world = await licenseWorld(app.ctx);
      const url = app.listen();
      for (let round = 0; round < ROUNDS; round++) {
        const { license, machine } = await raceSetup(app, url, world);
        const [deletion, ...answers] = await Promise.all([
          fetch(`${url}/api/v1/machines/${machine.id}`, {
            method: "DELETE",
            headers: { authorization: `License ${license.key}` },
          }).then(asAnswer),
          ...Array.from({ length: RACERS }, () =>
            fetch(`${url}/api/v1/licenses/activate`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ key: license.key, fingerprint: "raced" }),
            }).then(asAnswer),
          ),
        ]);
        expect(deletion?.status).toBe(204);
        for (const answer of answers) expect([200, 201]).toContain(answer.status);
        await expectNoAnswerForAGoneMachine(app, license.id, machine, answers);
      }
    },
    { timeoutMs: 120_000 },
  );
});

describe("1 DELETE + 15 heartbeats of the machine, 8 rounds", () => {
  testOnBothDatabases(
    async (app) => {
      const world = await licenseWorld(app.ctx);
      const url = app.listen();
      for (let round = 0; round < ROUNDS; round++) {
        const { license, machine } = await raceSetup(app, url, world);
        const [deletion, ...answers] = await Promise.all([
          fetch(`${url}/api/v1/machines/${machine.id}`, {
            method: "DELETE",
            headers: { authorization: `License ${license.key}` },
          }).then(asAnswer),
          ...Array.from({ length: RACERS }, () =>
            fetch(`${url}/api/v1/machines/${machine.id}/heartbeat`, {
              method: "POST",
              headers: { authorization: `License ${license.key}` },
            }).then(asAnswer),
          ),
        ]);
        expect(deletion?.status).toBe(204);
        // Before the delete a heartbeat keeps the machine alive; after it, the machine is not found.
        for (const answer of answers) expect([200, 404]).toContain(answer.status);
        await expectNoAnswerForAGoneMachine(app, license.id, machine, answers);
      }
    },
    { timeoutMs: 120_000 },
  );
});

describe("1 DELETE + 15 checkouts with the machine's fingerprint, 8 rounds", () => {
  testOnBothDatabases(
    async (app) => {
      const world = await licenseWorld(app.ctx);
      const url = app.listen();
      for (let round = 0; round < ROUNDS; round++) {
        const { license, machine } = await raceSetup(app, url, world);
        const [deletion, ...answers] = await Promise.all([
          fetch(`${url}/api/v1/machines/${machine.id}`, {
            method: "DELETE",
            headers: { authorization: `License ${license.key}` },
          }).then(asAnswer),
          ...Array.from({ length: RACERS }, () =>
            fetch(`${url}/api/v1/licenses/checkout`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ key: license.key, fingerprint: "raced", ttl: 3_600 }),
            }).then(asAnswer),
          ),
        ]);
        const files = answers.filter((a) => a.body.license_file !== undefined);
        const [row] = await app.ctx.db.select().from(machines).where(eq(machines.id, machine.id));
        if (deletion?.status === 204) {
          // The machine went first: no file was bound to it.
          expect(row).toBeUndefined();
          expect(files).toEqual([]);
        } else {
          // A file came first: the machine keeps its seat until the latest file expires.
          expect(deletion?.status).toBe(409);
          expect(deletion?.body.code).toBe("MACHINE_FILE_VALID");
          expect(files.length).toBeGreaterThan(0);
          const latest = files
            .map((a) => a.body.license_file_expires_at)
            .toSorted()
            .at(-1);
          expect(row?.fileExpiresAt?.toISOString()).toBe(latest);
        }
        for (const answer of answers) {
          expect(answer.status).toBe(200);
          if (answer.body.license_file === undefined) expect(answer.body.code).toBe("NOT_ACTIVATED");
          else expect(answer.body.machine.id).toBe(machine.id);
        }
      }
    },
    { timeoutMs: 120_000 },
  );
});
