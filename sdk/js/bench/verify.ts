/**
 * The CPU cost of one verified validate: a real answer recorded from depot (recorded-answer.json),
 * verified N times in a loop with no network: the digest of the body, the signature input, the
 * Ed25519 signature, created, the JSON body and its nonce, and that it is about the key and product
 * asked (what Client.validate does after the answer has arrived).
 *
 *   node .build/bench/verify.js [N]      (compiled by test.sh / bench/run.sh)
 *   bun bench/verify.ts [N]
 *   bun bench/verify.ts --record FIXTURE  records a new answer from a seeded depot (start-depot.ts --out)
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { verifyAnswer } from "../src/answer.js";
import { fromBase64, newNonce, toBase64 } from "../src/encoding.js";
import { KeySet, parseJwks } from "../src/jwks.js";
import { checkLicense } from "../src/subject.js";

interface Recording {
  jwks: string;
  status: number;
  headers: Record<string, string>;
  body: string;
  nonce: string;
  key: string;
  productId: string;
  created: number;
}

// Beside this file, or (compiled into .build/bench) beside its source.
const RECORDING =
  [
    new URL("./recorded-answer.json", import.meta.url),
    new URL("../../bench/recorded-answer.json", import.meta.url),
  ].find(existsSync) ?? new URL("./recorded-answer.json", import.meta.url);
const args = process.argv.slice(2);

if (args[0] === "--record") {
  const fixture = JSON.parse(readFileSync(args[1] as string, "utf8"));
  const nonce = newNonce();
  const response = await fetch(`${fixture.server}/api/v1/licenses/validate`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ key: fixture.key, productId: fixture.productId, nonce }),
  });
  const headers: Record<string, string> = {};
  for (const name of ["content-type", "content-digest", "signature-input", "signature"]) {
    headers[name] = response.headers.get(name) ?? "";
  }
  const recording: Recording = {
    jwks: readFileSync(fixture.jwks, "utf8"),
    status: response.status,
    headers,
    body: toBase64(new Uint8Array(await response.arrayBuffer())),
    nonce,
    key: fixture.key,
    productId: fixture.productId,
    created: Number(/;created=(\d+)/.exec(headers["signature-input"] ?? "")?.[1]),
  };
  writeFileSync(RECORDING, `${JSON.stringify(recording, null, 2)}\n`);
  console.log(`recorded ${RECORDING.pathname}`);
  process.exit(0);
}

const recording = JSON.parse(readFileSync(RECORDING, "utf8")) as Recording;
const keys = new KeySet(parseJwks(recording.jwks), null);
const body = fromBase64(recording.body) as Uint8Array<ArrayBuffer>;
const headers = new Headers(recording.headers);

async function verifyOnce() {
  const answer = await verifyAnswer(
    { status: recording.status, headers, body },
    { keys, now: recording.created, maxAgeSeconds: 300, maxFutureSeconds: 300, nonce: recording.nonce },
  );
  checkLicense(answer.body.license, recording.key, recording.productId, String(answer.body.code));
  if (answer.body.valid !== true) throw new Error("the recorded answer is not VALID");
}

const iterations = Number(args[0] ?? 20_000);
const runtime =
  typeof (globalThis as { Bun?: unknown }).Bun === "undefined"
    ? `node ${process.version}`
    : `bun ${(globalThis as unknown as { Bun: { version: string } }).Bun.version}`;
for (let i = 0; i < 2_000; i++) await verifyOnce(); // warm-up (JIT, the imported key)
const rounds: number[] = [];
const cpuRounds: number[] = [];
for (let round = 0; round < 5; round++) {
  const started = performance.now();
  // The process's CPU time (every thread: Node runs Web Crypto on its pool), which a busy machine
  // does not inflate as it does the wall clock.
  const cpu = process.cpuUsage();
  for (let i = 0; i < iterations; i++) await verifyOnce();
  const used = process.cpuUsage(cpu);
  rounds.push(((performance.now() - started) * 1000) / iterations);
  cpuRounds.push((used.user + used.system) / iterations);
}
rounds.sort((a, b) => a - b);
cpuRounds.sort((a, b) => a - b);
const median = rounds[2] as number;
console.log(
  `${runtime}: ${(cpuRounds[2] as number).toFixed(1)} µs CPU per verified validate, ${median.toFixed(1)} µs wall ` +
    `(medians of 5 rounds of ${iterations}; wall fastest ${rounds[0]?.toFixed(1)}, slowest ${rounds[4]?.toFixed(1)})`,
);
