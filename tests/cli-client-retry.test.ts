import { describe, expect, test } from "bun:test";
import { UsageError } from "../src/cli/command.ts";
import { retryPolicy } from "../src/cli/connection.ts";
import { GaveUp } from "../src/cli-client/failures.ts";
import { Retryable, retryNotice, withRetries } from "../src/cli-client/retry.ts";

/** The retry rules every client command shares (docs/reference/cli.md, Client commands). */

const fast = { retries: 2, firstDelayMs: 1 };

describe("withRetries", () => {
  test("a Retryable failure is tried again, with a growing wait, until it succeeds", async () => {
    let calls = 0;
    const waits: number[] = [];
    const result = await withRetries(
      { retries: 3, firstDelayMs: 4 },
      async () => {
        if (++calls < 3) throw new Retryable("busy");
        return "done";
      },
      (_, delayMs) => waits.push(delayMs),
    );
    expect({ result, calls }).toEqual({ result: "done", calls: 3 });
    // 4 ms, then 8 ms, each ±25%.
    expect(waits[0]).toBeWithin(3, 6);
    expect(waits[1]).toBeWithin(6, 11);
  });

  test("after `retries` retries in a row it gives up with the last message", async () => {
    let calls = 0;
    const failing = withRetries(fast, async () => {
      throw new Retryable(`attempt ${++calls} failed`);
    });
    await expect(failing).rejects.toThrow(
      new GaveUp("gave up after 3 failed attempts in a row: attempt 3 failed"),
    );
    expect(calls).toBe(3);
  });

  test("anything else (a refusal, a bug) is not retried", async () => {
    let calls = 0;
    const refused = withRetries(fast, async () => {
      calls++;
      throw new Error("no");
    });
    await expect(refused).rejects.toThrow("no");
    expect(calls).toBe(1);
  });

  test("an attempt that made progress starts the count afresh", async () => {
    let calls = 0;
    const result = await withRetries(fast, async () => {
      calls++;
      // Five failures, more than 2 retries allow; but every second one got somewhere, so no more
      // than two ever come in a row.
      if (calls <= 5) throw new Retryable("cut", calls % 2 === 0);
      return calls;
    });
    expect(result).toBe(6);
  });
});

describe("retryNotice", () => {
  const down = new Retryable("cannot reach http://depot.test/api/x: connection refused");

  test("the first failure says how often and how long the retries go on, and which settings decide it", () => {
    expect(retryNotice(down, 1100, 1, { retries: 5, firstDelayMs: 1000 })).toBe(
      "cannot reach http://depot.test/api/x: connection refused; retrying up to 5 times, waiting about " +
        "31 s in all (DEPOT_RETRIES=5, DEPOT_RETRY_DELAY_MS=1000)",
    );
    // Waits are capped at 30 s each: 1 + 2 + 4 + 8 + 16 + 30 + 30.
    expect(retryNotice(down, 900, 1, { retries: 7, firstDelayMs: 1000 })).toContain(
      "waiting about 91 s in all",
    );
    expect(retryNotice(down, 20, 1, { retries: 1, firstDelayMs: 20 })).toContain(
      "; retrying once, waiting about 20 ms",
    );
  });

  test("the later ones count", () => {
    expect(retryNotice(down, 1870, 2, { retries: 5, firstDelayMs: 1000 })).toBe(
      "cannot reach http://depot.test/api/x: connection refused; retry 2 of 5 in 1.9 s",
    );
  });
});

describe("retryPolicy", () => {
  test("defaults, and the DEPOT_RETRIES / DEPOT_RETRY_DELAY_MS overrides", () => {
    expect(retryPolicy({})).toEqual({ retries: 5, firstDelayMs: 1000 });
    expect(retryPolicy({ DEPOT_RETRIES: "0", DEPOT_RETRY_DELAY_MS: "20" })).toEqual({
      retries: 0,
      firstDelayMs: 20,
    });
  });

  test.each([
    ["DEPOT_RETRIES", "-1", 'DEPOT_RETRIES must be a whole number from 0 to 100, got "-1"'],
    ["DEPOT_RETRIES", "101", 'DEPOT_RETRIES must be a whole number from 0 to 100, got "101"'],
    ["DEPOT_RETRY_DELAY_MS", "1.5", 'DEPOT_RETRY_DELAY_MS must be a whole number from 0 to 30000, got "1.5"'],
  ])("%s=%s is a usage error", (name, value, message) => {
    expect(() => retryPolicy({ [name]: value })).toThrow(new UsageError(message));
  });
});
