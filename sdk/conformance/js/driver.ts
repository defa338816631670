/**
 * The conformance driver for sdk/js (sdk/README.md, "The conformance suite"), run by
 * `sdk/conformance/run.sh js …` with Bun on the library's source:
 *
 *   bun sdk/conformance/js/driver.ts --server URL --jwks FILE --product ID --key KEY \
 *     [--fingerprint FP] [--current-version V --platform P --arch A]
 *
 * Activates the fingerprint when given, validates, checks for an update when a current version is
 * given, and prints one JSON line. Exit 0 valid and verified, 1 verified but not valid, 2 unverifiable,
 * 3 unreachable, 64 usage.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { Client, RefusedError, UnreachableError, UnverifiableError } from "../../js/src/index.js";

const USAGE =
  "usage: driver --server URL --jwks FILE --product ID --key KEY [--fingerprint FP] " +
  "[--current-version V --platform P --arch A]";

function usage(message: string): never {
  console.error(`${message}\n${USAGE}`);
  process.exit(64);
}

function readArguments() {
  try {
    const { values } = parseArgs({
      strict: true,
      options: {
        server: { type: "string" },
        jwks: { type: "string" },
        product: { type: "string" },
        key: { type: "string" },
        fingerprint: { type: "string" },
        "current-version": { type: "string" },
        platform: { type: "string" },
        arch: { type: "string" },
      },
    });
    for (const required of ["server", "jwks", "product", "key"] as const) {
      if (!values[required]) usage(`--${required} is required`);
    }
    return values as typeof values & { server: string; jwks: string; product: string; key: string };
  } catch (error) {
    usage((error as Error).message);
  }
}

function print(line: Record<string, unknown>, code: number): never {
  console.log(JSON.stringify(line));
  process.exit(code);
}

async function main(): Promise<never> {
  const args = readArguments();
  let client: Client;
  try {
    client = new Client({
      server: args.server,
      productId: args.product,
      jwks: readFileSync(args.jwks, "utf8"),
    });
  } catch (error) {
    usage((error as Error).message);
  }
  const line: Record<string, unknown> = {};
  if (args.fingerprint !== undefined) {
    const activation = await client.activate(args.key, args.fingerprint, { name: "conformance" });
    line.machine = { id: activation.machine.id };
  }
  const validation = await client.validate(
    args.key,
    args.fingerprint === undefined ? {} : { fingerprint: args.fingerprint },
  );
  const result = { valid: validation.valid, code: validation.code, verified: true, ...line };
  if (!validation.valid) print(result, 1);
  if (args["current-version"] !== undefined) {
    const upgrade = await client.checkForUpdate(args.key, args["current-version"], {
      ...(args.platform === undefined ? {} : { platform: args.platform }),
      ...(args.arch === undefined ? {} : { arch: args.arch }),
    });
    print({ ...result, upgrade: { version: upgrade.version } }, 0);
  }
  print(result, 0);
}

main().catch((error: unknown) => {
  if (error instanceof RefusedError) print({ valid: false, code: error.code, verified: true }, 1);
  if (error instanceof UnverifiableError) {
    print({ verified: false, error: "unverifiable", reason: error.message }, 2);
  }
  if (error instanceof UnreachableError) {
    print({ verified: false, error: "unreachable", reason: error.message }, 3);
  }
  console.error(error);
  process.exit(70);
});
