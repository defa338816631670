#!/usr/bin/env bash
# Runs the two verification examples (examples/verify-typescript, examples/verify-java) against the
# compiled depot binary, started from an empty directory on its embedded database:
#
#   scripts/verify-examples.sh dist/depot
#
# Needs bun (or the binary's own, BUN_BE_BUN=1), sdk/js (the TypeScript example's depot-client), and
# a JDK 17+ (the Java example is built against depot's Java library, sdk/java, by sdk/java/build.sh).
# The real JWKS is fetched once into the work dir and pinned (--jwks), as shipped software would.
# Checks, for both examples:
#   a. a demo license, keys pinned: VALID, a license file checked out to the default path and
#      verified offline (exit 0); again with that file given by --license-file and the keys fetched
#      from the server: the same, and a warning that they are not pinned (exit 0)
#   b. another product's id: INVALID (PRODUCT_MISMATCH), no license file (exit 1)
#   c. a fake depot (scripts/fake-depot.ts) serving a copy of the real JWKS and answering VALID
#      unsigned, forged, replayed or about another license: INVALID (exit 1); a self-keyed fake
#      (its own JWKS, its own key): passes with keys fetched from it (exit 0), refused with the
#      keys pinned, its license file too (exit 1)
#   d. a license file with one character of its payload changed: license file INVALID (exit 1); the
#      server under another host name: the file is refused naming the issuer found and expected
#   e. a key the server refuses (422): the signed error answer verifies, INVALID (exit 1)
#   f. after keys:rotate, the JWKS fetched again (what a release would ship) holds both keys and
#      the file signed by the retired key verifies (exit 0); the JWKS from before the rotation
#      refuses the new key's answers but still verifies that file (exit 1)
#   g. no arguments, an empty --jwks: usage error (exit 2); a --jwks file that is missing (exit 1)
#   h. machines (--fingerprint): a license with maxMachines 1 activates this machine, validates with
#      its fingerprint, sends one heartbeat and verifies a machine-bound file (exit 0); the other
#      example's machine is refused (TOO_MANY_MACHINES, exit 1) until the vendor frees the first's
#      seat (its license file holds it: the API key's force), and a
#      file bound to another machine is refused (exit 1); an offline activation's file (offline: true)
#      verifies on its machine and is refused on another
# and the TypeScript example typechecks (tsc -p examples/verify-typescript).
set -euo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 PATH_TO_DEPOT_BINARY" >&2
  exit 2
fi
if [[ ! -x "$1" ]]; then
  echo "verify-examples: $1 is not an executable file" >&2
  exit 2
fi
BIN="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# Every setting comes from the environment: make sure none leaks in from the caller (the examples
# read DEPOT_URL and LICENSE_KEY when no arguments name them).
unset DATABASE_URL TEST_DATABASE_URL DATA_DIR STORAGE_DIR APP_KEY APP_URL PORT HOST \
  SIGNING_KEY_GRACE_DAYS SIGNING_KEY_REFRESH_SECONDS DEPOT_URL LICENSE_KEY

WORK="$(mktemp -d "${TMPDIR:-/tmp}/depot-examples.XXXXXX")"
NAME=verify-examples
FAKE_PID=""
stop_others() { [[ -z "$FAKE_PID" ]] || stop_pid "$FAKE_PID"; }
SERVER_DIR="$WORK/home"
# shellcheck source=scripts/lib/binary.sh
source "$ROOT/scripts/lib/binary.sh"
# The binary runs in $WORK/home (embedded database in ./data), with APP_URL as the license files'
# issuer: the examples expect iss to be the URL they talk to.
SERVER_ENV=(APP_URL="$BASE")

# --- tools ----------------------------------------------------------------------------------

# A command, not a function: a backgrounded function is a subshell, and $! must be Bun itself.
if command -v bun >/dev/null 2>&1; then
  BUN=(bun)
else
  BUN=(env BUN_BE_BUN=1 "$BIN")
fi
run_bun() { "${BUN[@]}" "$@"; }
[[ -f "$ROOT/sdk/js/src/index.ts" ]] || fail "sdk/js is missing: the TypeScript example uses depot-client from it"
command -v javac >/dev/null 2>&1 && command -v java >/dev/null 2>&1 || fail "java and javac (JDK 17+) are needed"

cd "$WORK"
[[ -z "$(ls -A)" ]] || fail "working directory $WORK is not empty"
mkdir "$WORK/home"

# start_fake MODE KEY: scripts/fake-depot.ts on a port of its own; sets FAKE_URL.
start_fake() {
  local port log="$WORK/fake-$1.log"
  port="$(free_port)"
  "${BUN[@]}" "$ROOT/scripts/fake-depot.ts" "$1" "$BASE" "$2" "$port" >"$log" 2>&1 &
  FAKE_PID=$!
  for _ in $(seq 1 100); do
    grep -q '^listening' "$log" && break
    kill -0 "$FAKE_PID" 2>/dev/null || fail "the fake depot ($1) exited"
    sleep 0.1
  done
  grep -q '^listening' "$log" || fail "the fake depot ($1) did not start within 10 s"
  FAKE_URL="http://127.0.0.1:$port"
}

stop_fake() {
  stop_pid "$FAKE_PID"
  FAKE_PID=""
}

ts_example() { run_bun "$ROOT/examples/verify-typescript/verify.ts" "$@"; }
JAVA_SDK_JAR="$WORK/java-sdk/depot-client-0.1.0.jar"
java_example() { java -cp "$WORK/classes:$JAVA_SDK_JAR" Verify "$@"; }

# check LABEL EXIT PATTERN... -- COMMAND...: runs COMMAND, shows its output, and fails unless it
# exits EXIT with, for each PATTERN (grep -E), a line that matches it.
check() {
  local label="$1" want="$2"
  shift 2
  local patterns=()
  while [[ "$1" != "--" ]]; do
    patterns+=("$1")
    shift
  done
  shift
  local code=0
  "$@" >"$WORK/out" 2>&1 || code=$?
  sed 's/^/    /' "$WORK/out"
  [[ $code -eq $want ]] || fail "$label: exit $code (expected $want)"
  local pattern
  for pattern in "${patterns[@]}"; do
    grep -Eq -- "$pattern" "$WORK/out" || fail "$label: no line matches /$pattern/"
  done
  echo "  ok: $label (exit $code)"
}

# both LABEL EXIT PATTERN... -- ARGS...: check, for the TypeScript then the Java example.
both() {
  local label="$1" want="$2"
  shift 2
  local patterns=()
  while [[ "$1" != "--" ]]; do
    patterns+=("$1")
    shift
  done
  shift
  check "typescript: $label" "$want" "${patterns[@]}" -- ts_example "$@"
  check "java: $label" "$want" "${patterns[@]}" -- java_example "$@"
}

# --- the run --------------------------------------------------------------------------------

step "binary: $BIN, work dir: $WORK, port: $PORT"
"$BIN" --version

step "typecheck examples/verify-typescript (tsc)"
"$ROOT/node_modules/.bin/tsc" --noEmit -p "$ROOT/examples/verify-typescript"

step "build sdk/java, compile examples/verify-java/Verify.java against it (javac $(javac -version 2>&1 | cut -d' ' -f2))"
bash "$ROOT/sdk/java/build.sh" "$WORK/java-sdk"
javac -cp "$JAVA_SDK_JAR" -d "$WORK/classes" "$ROOT/examples/verify-java/Verify.java"

step "first start of depot serve (embedded database unpacked, first signing key)"
start_server "$WORK/serve-1.log"
stop_server

step "demo:seed --json"
depot demo:seed --json >"$WORK/demo.json"
key="$(json_path 'd.licenses[0].key' "$WORK/demo.json")" || fail "demo:seed: no license"
product="$(json_path 'd.licenses[0].product_id' "$WORK/demo.json")" || fail "demo:seed: no product_id"
other_product="$(json_path 'd.products.find((p) => String(p.id) !== String(d.licenses[0].product_id)).id' "$WORK/demo.json")" ||
  fail "demo:seed: no second product"
other_key="$(json_path 'd.licenses.find((l) => l.key !== d.licenses[0].key).key' "$WORK/demo.json")" ||
  fail "demo:seed: no second license"
echo "  license $key, product $product (another product: $other_product)"

step "second start of depot serve"
start_server "$WORK/serve-2.log"

step "fetch the JWKS once: the keys the examples pin (--jwks), as shipped software would"
curl -sS --fail --max-time 5 -o "$WORK/jwks.json" "$BASE/.well-known/jwks.json"
kid="$(json_path 'd.keys.length === 1 ? d.keys[0].kid : undefined' "$WORK/jwks.json")" ||
  fail "the JWKS does not hold exactly one key"
echo "  $WORK/jwks.json: key $kid"

step "a. the demo license: VALID; a license file checked out to ./depot-license.lic, verified offline"
mkdir "$WORK/ts" "$WORK/java"
(cd "$WORK/ts" && check "typescript: valid license, pinned keys" 0 '^keys: 1 Ed25519 key\(s\) pinned in ' \
  '^VALID$' '^license file: checked out' '^license file VALID until ' -- \
  ts_example "$BASE" "$key" --product "$product" --jwks "$WORK/jwks.json")
! grep -q '^warning:' "$WORK/out" || fail "typescript: a warning although the keys are pinned"
(cd "$WORK/java" && check "java: valid license, pinned keys" 0 '^keys: 1 Ed25519 key\(s\) pinned in ' \
  '^VALID$' '^license file: checked out' '^license file VALID until ' -- \
  java_example "$BASE" "$key" --product "$product" --jwks "$WORK/jwks.json")
! grep -q '^warning:' "$WORK/out" || fail "java: a warning although the keys are pinned"
[[ -s "$WORK/ts/depot-license.lic" && -s "$WORK/java/depot-license.lic" ]] ||
  fail "the examples did not write depot-license.lic in their working directory"
# Also the way the README runs it: a single-file source launch, and the file the other example wrote;
# without --jwks (keys from the server itself), which works but warns.
unpinned='^warning: keys from the server itself only stop a fake that copies depot.s keys; shipped software should pin them with --jwks$'
check "java (single-file launch): valid license, the TypeScript example's file, keys not pinned" 0 "$unpinned" \
  '^keys: 1 Ed25519 key\(s\) from ' '^VALID$' '^license file: using ' '^license file VALID until ' -- \
  java -cp "$JAVA_SDK_JAR" "$ROOT/examples/verify-java/Verify.java" "$BASE" "$key" --license-file "$WORK/ts/depot-license.lic"
check "typescript: valid license, the Java example's file, keys not pinned" 0 "$unpinned" \
  '^keys: 1 Ed25519 key\(s\) from ' '^VALID$' '^license file: using ' '^license file VALID until ' -- \
  ts_example "$BASE" "$key" --license-file "$WORK/java/depot-license.lic"

step "b. another product: INVALID (PRODUCT_MISMATCH), no license file"
both "wrong product" 1 '^INVALID \(PRODUCT_MISMATCH\)$' '^license file INVALID \(checkout: PRODUCT_MISMATCH\)$' -- \
  "$BASE" "$key" --product "$other_product" --license-file "$WORK/mismatch.lic" --jwks "$WORK/jwks.json"
[[ ! -e "$WORK/mismatch.lic" ]] || fail "a license file was written for the wrong product"

step "c. a fake depot with a copy of the real JWKS: every VALID it makes up is refused"
start_fake unsigned "$key"
both "fake depot, unsigned answers" 1 '^INVALID \(the answer is not signed\)$' '^license file INVALID' -- \
  "$FAKE_URL" "$key" --license-file "$WORK/fake.lic" --jwks "$WORK/jwks.json"
stop_fake
start_fake forged "$key"
both "fake depot, answers signed by another key under the real keyid" 1 \
  '^INVALID \(the signature does not verify\)$' '^license file INVALID' -- \
  "$FAKE_URL" "$key" --license-file "$WORK/fake.lic" --jwks "$WORK/jwks.json"
stop_fake
start_fake replayed "$key"
both "fake depot, genuine answers recorded earlier" 1 '^INVALID \(the answer does not echo our nonce' \
  '^license file INVALID' -- "$FAKE_URL" "$key" --license-file "$WORK/fake.lic" --jwks "$WORK/jwks.json"
stop_fake
start_fake swapped "$other_key"
both "fake depot relaying with its own key swapped in" 1 '^INVALID \(the answer is about another license key\)$' \
  '^license file INVALID' -- "$FAKE_URL" "NOTAR-EALKE-Y0000-00000-00000" --license-file "$WORK/fake.lic" \
  --jwks "$WORK/jwks.json"
stop_fake
[[ ! -e "$WORK/fake.lic" ]] || fail "a license file was written from a fake depot's answer"

step "c. a self-keyed fake depot (its own JWKS, its own key): only pinned keys refuse it"
start_fake self-keyed "$key"
# First what it is up against without pinning: its JWKS vouches for its answers and its license file.
both "self-keyed fake, keys from the fake itself: fooled" 0 "$unpinned" '^VALID$' '^license file VALID until ' -- \
  "$FAKE_URL" "$key" --product "$product" --license-file "$WORK/self-keyed.lic"
not_pinned='is not pinned \(not in .*/jwks\.json\)\)$'
both "self-keyed fake, pinned keys" 1 "^INVALID \\(the key \"[^\"]+\" $not_pinned" \
  "^license file INVALID \\(checkout: the key \"[^\"]+\" $not_pinned" -- \
  "$FAKE_URL" "$key" --product "$product" --license-file "$WORK/fake.lic" --jwks "$WORK/jwks.json"
both "self-keyed fake, pinned keys, the license file it handed out" 1 "^INVALID \\(the key \"[^\"]+\" $not_pinned" \
  '^license file: using ' "^license file INVALID \\(the key \"[^\"]+\" $not_pinned" -- \
  "$FAKE_URL" "$key" --product "$product" --license-file "$WORK/self-keyed.lic" --jwks "$WORK/jwks.json"
stop_fake
[[ ! -e "$WORK/fake.lic" ]] || fail "a license file was written from the self-keyed fake's answer with pinned keys"

step "d. a license file with one character of its payload changed"
run_bun -e '
  const fs = require("fs");
  const [from, to] = process.argv.slice(-2);
  const [header, payload, signature] = fs.readFileSync(from, "utf8").replace(/-----[A-Z ]+-----/g, "").replace(/\s+/g, "").split(".");
  const i = payload.length >> 1;
  const changed = `${payload.slice(0, i)}${payload[i] === "A" ? "B" : "A"}${payload.slice(i + 1)}`;
  const jws = `${header}.${changed}.${signature}`;
  fs.writeFileSync(to, `-----BEGIN DEPOT LICENSE FILE-----\n${jws.match(/.{1,64}/g).join("\n")}\n-----END DEPOT LICENSE FILE-----\n`);
' "$WORK/ts/depot-license.lic" "$WORK/tampered.lic"
both "tampered license file" 1 '^VALID$' '^license file INVALID \(signature verification failed\)$' -- \
  "$BASE" "$key" --license-file "$WORK/tampered.lic" --jwks "$WORK/jwks.json"

step "d2. the same server under another host name: the answer verifies, the file names both issuers"
LOCALHOST_BASE="${BASE/127.0.0.1/localhost}"
both "another host name" 1 '^VALID$' \
  "^license file INVALID \\(the file was issued by \"$BASE\", expected \"$LOCALHOST_BASE\" \\(the issuer is the depot's APP_URL" -- \
  "$LOCALHOST_BASE" "$key" --license-file "$WORK/ts/depot-license.lic" --jwks "$WORK/jwks.json"

step "e. a key the server refuses (422): its signed error answer verifies, and says no"
too_long="$(printf 'K%.0s' $(seq 1 201))"
both "error answer" 1 '^answer: signature and digest verified \(HTTP 422\)$' '^INVALID \(HTTP 422: ' -- \
  "$BASE" "$too_long" --license-file "$WORK/error.lic" --jwks "$WORK/jwks.json"

step "f. keys:rotate: the JWKS fetched again (a software update) holds both keys; the retired key's file verifies"
stop_server
depot keys:rotate --json >"$WORK/rotate.json"
rotated_kid="$(json_path 'd.active.kid' "$WORK/rotate.json")" || fail "keys:rotate: no active kid"
echo "  active key now $rotated_kid"
start_server "$WORK/serve-3.log"
curl -sS --fail --max-time 5 -o "$WORK/jwks-rotated.json" "$BASE/.well-known/jwks.json"
both "after a rotation, the new JWKS and the file from before it" 0 '^keys: 2 Ed25519 key\(s\) pinned in ' \
  '^VALID$' '^license file VALID until ' -- \
  "$BASE" "$key" --product "$product" --license-file "$WORK/ts/depot-license.lic" --jwks "$WORK/jwks-rotated.json"
curl -sS --max-time 5 -o /dev/null -D "$WORK/headers" -H 'Content-Type: application/json' \
  -d "{\"key\":\"$key\"}" "$BASE/api/v1/licenses/validate"
grep -qi "^signature-input: depot=.*keyid=\"$rotated_kid\"" "$WORK/headers" ||
  fail "answers are not signed by the new key $rotated_kid"
# Software not updated yet: pinned to the old set, it cannot take the new key's word, but its license
# file (signed by the old key) still verifies offline.
both "after a rotation, the JWKS from before it" 1 "^INVALID \\(the key \"$rotated_kid\" $not_pinned" \
  '^license file VALID until ' -- \
  "$BASE" "$key" --product "$product" --license-file "$WORK/ts/depot-license.lic" --jwks "$WORK/jwks.json"

step "g. usage errors, a --jwks file that is missing"
check "typescript: no arguments" 2 '^usage: ' -- ts_example
check "java: no arguments" 2 '^usage: ' -- java_example
both "an empty --jwks" 2 '^--jwks needs a path$' '^usage: ' -- "$BASE" "$key" --jwks ""
both "a --jwks file that is missing" 1 "^keys: INVALID \\(cannot read $WORK/missing\\.json" -- \
  "$BASE" "$key" --jwks "$WORK/missing.json"

step "h. machines: activate, validate with the fingerprint, one heartbeat, a machine-bound file"
apikey="$(json_path 'd.api_keys.all.key' "$WORK/demo.json")" || fail "demo:seed: no API key"
license_id="$(json_path 'd.licenses[0].id' "$WORK/demo.json")" || fail "demo:seed: no license id"
curl -sS --fail --max-time 5 -o /dev/null -X PATCH -H "x-api-key: $apikey" -H 'Content-Type: application/json' \
  -d '{"maxMachines":1,"heartbeatSeconds":600}' "$BASE/api/v1/licenses/$license_id"
check "typescript: this machine activated, validated, one heartbeat, its file" 0 '^machine: activated \(' \
  '^heartbeat: signature and digest verified' '^VALID$' '^license file: checked out' '^license file VALID until ' -- \
  ts_example "$BASE" "$key" --product "$product" --jwks "$WORK/jwks-rotated.json" --fingerprint fp-typescript \
  --license-file "$WORK/ts-machine.lic"
check "java: a second machine on a license of one" 1 '^machine: INVALID \(activate: HTTP 409: TOO_MANY_MACHINES ' -- \
  java_example "$BASE" "$key" --jwks "$WORK/jwks-rotated.json" --fingerprint fp-java --license-file "$WORK/java-machine.lic"
machine_id="$(curl -sS --fail --max-time 5 -H "x-api-key: $apikey" "$BASE/api/v1/licenses/$license_id/machines" |
  "${BUN[@]}" -e 'const d = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log(d.machines[0].id)')"
# Its license file holds the seat until it expires (MACHINE_FILE_VALID to the license key): the
# vendor's API key frees it with force, as docs/vendors.md says.
curl -sS --fail --max-time 5 -o /dev/null -X DELETE -H "x-api-key: $apikey" "$BASE/api/v1/machines/$machine_id?force=true"
check "java: after the first is deactivated, its seat" 0 '^machine: activated \(' \
  '^heartbeat: signature and digest verified' '^VALID$' '^license file: checked out' '^license file VALID until ' -- \
  java_example "$BASE" "$key" --product "$product" --jwks "$WORK/jwks-rotated.json" --fingerprint fp-java \
  --license-file "$WORK/java-machine.lic"
check "typescript: the Java machine's file on another machine" 1 '^license file INVALID \(the file is bound to another machine\)$' -- \
  ts_example "$BASE" "$key" --jwks "$WORK/jwks-rotated.json" --fingerprint fp-java --license-file "$WORK/ts-machine.lic"

step "h. offline activation: the file the API hands out for an air-gapped machine, verified by the Java example"
curl -sS --fail --max-time 5 -o /dev/null -X PATCH -H "x-api-key: $apikey" -H 'Content-Type: application/json' \
  -d '{"maxMachines":2}' "$BASE/api/v1/licenses/$license_id"
curl -sS --fail --max-time 5 -o "$WORK/offline.json" -H 'Content-Type: application/json' \
  -d "{\"key\":\"$key\",\"fingerprint\":\"fp-air-gapped\",\"name\":\"vault\",\"offline\":true}" \
  "$BASE/api/v1/licenses/activate"
json_path 'd.license_file' "$WORK/offline.json" >"$WORK/offline.lic" || fail "offline activation: no license_file"
check "java: the offline activation's file, on its machine" 0 '^machine: already active \(' '^VALID$' \
  '^license file: using ' '^license file VALID until ' -- \
  java_example "$BASE" "$key" --jwks "$WORK/jwks-rotated.json" --fingerprint fp-air-gapped --license-file "$WORK/offline.lic"
check "java: the offline activation's file, on another machine" 1 \
  '^license file INVALID \(the file is bound to another machine\)$' -- \
  java_example "$BASE" "$key" --jwks "$WORK/jwks-rotated.json" --fingerprint fp-java --license-file "$WORK/offline.lic"

stop_server
STEP="done"
echo "verify-examples: all checks passed in $SECONDS s"
