import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { openEmbedded } from "../src/db/client.ts";
import { users } from "../src/db/schema/index.ts";
import { depot, stderrLines } from "./helpers/cli.ts";

// Each test starts depot processes that hash with argon2: seconds each on a busy 2-core machine.
setDefaultTimeout(30_000);

// As users run them: separate processes on an embedded data directory, the password piped in.
const dataDir = mkdtempSync(join(tmpdir(), "depot-cli-passwords-"));
const env = { DATA_DIR: dataDir };
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** The stored hash of the user with `email` (read after the command has exited and let go of the data). */
async function storedHash(email: string): Promise<string | null> {
  const database = await openEmbedded(dataDir);
  try {
    const [row] = await database.db
      .select({ hash: users.passwordHash })
      .from(users)
      .where(eq(users.email, email));
    if (!row) throw new Error(`no user ${email}`);
    return row.hash;
  } finally {
    await database.close();
  }
}

const CREATE_USAGE =
  "usage: depot user:create --name N --email E [--role admin|vendor|customer] [--password-stdin] [--json]";

describe("user:create --password-stdin", () => {
  test("stores an argon2id hash of stdin's first line, never the password", async () => {
    const result = await depot(
      ["user:create", "--name", "Ada", "--email", "ada@example.com", "--password-stdin", "--json"],
      env,
      undefined,
      "correct horse battery\nignored second line\n",
    );
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: "" });
    expect(JSON.parse(result.stdout)).toEqual({
      id: expect.any(Number),
      name: "Ada",
      email: "ada@example.com",
      role: "customer",
    });
    const hash = await storedHash("ada@example.com");
    expect(hash).toStartWith("$argon2id$");
    expect(await Bun.password.verify("correct horse battery", hash ?? "")).toBe(true);
    expect(await Bun.password.verify("ignored second line", hash ?? "")).toBe(false);
  }, 60_000);

  test("without the option the user has no password", async () => {
    const result = await depot(["user:create", "--name", "Bob", "--email", "bob@example.com"], env);
    expect(result.code).toBe(0);
    expect(await storedHash("bob@example.com")).toBeNull();
  });

  test.each([
    ["nothing on stdin", undefined, "expected the password on stdin (one line)"],
    ["an empty line", "\n", "expected the password on stdin (one line)"],
    ["7 characters", "1234567\n", "the password must be at least 8 characters"],
    ["1025 characters", `${"x".repeat(1025)}\n`, "the password may not be longer than 1024 characters"],
  ])("%s: exit 2, one line, no user created", async (_, stdin, message) => {
    const email = `short-${crypto.randomUUID()}@example.com`;
    const result = await depot(
      ["user:create", "--name", "C", "--email", email, "--password-stdin"],
      env,
      undefined,
      stdin,
    );
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(stderrLines(result)).toEqual([`depot user:create: ${message}`]);
    const again = await depot(["user:create", "--name", "C", "--email", email, "--json"], env);
    expect(again.code).toBe(0);
  });

  test("CRLF line endings are not part of the password; exactly 8 and 1024 characters are fine", async () => {
    for (const password of ["12345678", "y".repeat(1024)]) {
      const email = `edge-${password.length}@example.com`;
      const result = await depot(
        ["user:create", "--name", "E", "--email", email, "--password-stdin"],
        env,
        undefined,
        `${password}\r\n`,
      );
      expect(result.code).toBe(0);
      expect(await Bun.password.verify(password, (await storedHash(email)) ?? "")).toBe(true);
    }
  });

  test("--help names the option", async () => {
    const result = await depot(["user:create", "--help"]);
    expect(result.stdout).toContain(CREATE_USAGE.replace("usage: ", ""));
    expect(result.stdout).toContain("--password-stdin reads the user's dashboard password");
  });
});

describe("user:password", () => {
  test("replaces the password of the user with that e-mail, in any case", async () => {
    const before = await storedHash("bob@example.com");
    expect(before).toBeNull();
    const result = await depot(
      ["user:password", "--email", "BOB@example.com"],
      env,
      undefined,
      "a new password\n",
    );
    expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({
      code: 0,
      stdout: "Set the password of <BOB@example.com>.\n",
      stderr: "",
    });
    expect(await Bun.password.verify("a new password", (await storedHash("bob@example.com")) ?? "")).toBe(
      true,
    );
  });

  test("no such user: exit 1 with one line", async () => {
    const result = await depot(
      ["user:password", "--email", "nobody@example.com"],
      env,
      undefined,
      "whatever123\n",
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(stderrLines(result)).toEqual(["depot user:password: No user has the email nobody@example.com."]);
  });

  test("usage errors exit 2: no --email, a short password", async () => {
    const noEmail = await depot(["user:password"], env, undefined, "whatever123\n");
    expect(noEmail.code).toBe(2);
    expect(stderrLines(noEmail)).toEqual([
      "depot user:password: --email is required",
      "usage: depot user:password --email E",
    ]);
    const short = await depot(["user:password", "--email", "bob@example.com"], env, undefined, "short\n");
    expect(short.code).toBe(2);
    expect(stderrLines(short)).toEqual(["depot user:password: the password must be at least 8 characters"]);
    expect(await Bun.password.verify("a new password", (await storedHash("bob@example.com")) ?? "")).toBe(
      true,
    );
  });
});
