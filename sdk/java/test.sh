#!/usr/bin/env bash
# The Java library's own tests, with the JDK alone (no JUnit, no Maven, no download):
#
#   sdk/java/test.sh [--only NAME]
#
#   1. builds the library (build.sh) and compiles the tests in src/test/java
#   2. starts a seeded depot from source (bun sdk/conformance/start-depot.ts) for the live tests
#   3. runs JsonTest, UnitTest, LocalServerTest (a small signing server inside the test) and
#      LiveDepotTest with the plain-Java runner in src/test/java (TestRunner), which ends with
#      "N passed, N failed"
#   4. holds the conformance driver (sdk/conformance/run.sh java) to sdk/README.md's exit codes,
#      against that depot and against scripts/fake-depot.ts in each of its modes
#
# DEPOT_FIXTURE=FILE uses a depot start-depot.ts already started (scripts/check-sdks.sh shares one
# between every library); DEPOT_CONFORMANCE=skip leaves step 4 to sdk/conformance/check.ts.
#
# Exits non-zero on any failure. Needs bun (node_modules/.bin) and a JDK 17+.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
BUILD="$HERE/build"
export PATH="$ROOT/node_modules/.bin:$PATH"
ONLY=()
[[ "${1:-}" == "--only" ]] && ONLY=(--only "$2")

run() {
  echo "+ $*"
  "$@"
}

run bash "$HERE/build.sh" "$BUILD"
rm -rf "$BUILD/test-classes"
find "$HERE/src/test/java" -name '*.java' | sort >"$BUILD/test-sources.txt"
run javac --release 17 -encoding UTF-8 -Xlint:all -Xlint:-serial -Werror -cp "$BUILD/classes" -d "$BUILD/test-classes" @"$BUILD/test-sources.txt"

FIXTURE="$BUILD/fixture.json"
rm -f "$FIXTURE"
DEPOT_PID=""
FAKE_PID=""
cleanup() {
  [[ -z "$FAKE_PID" ]] || kill "$FAKE_PID" 2>/dev/null || true
  if [[ -n "$DEPOT_PID" ]]; then
    kill "$DEPOT_PID" 2>/dev/null || true
    wait "$DEPOT_PID" 2>/dev/null || true
  fi
}
trap cleanup EXIT

cd "$ROOT"
if [[ -n "${DEPOT_FIXTURE:-}" ]]; then
  echo "+ the depot of DEPOT_FIXTURE=$DEPOT_FIXTURE"
  cp "$DEPOT_FIXTURE" "$FIXTURE"
else
  echo "+ bun sdk/conformance/start-depot.ts ${DEPOT_BINARY:+--binary $DEPOT_BINARY} --out $FIXTURE"
  bun sdk/conformance/start-depot.ts ${DEPOT_BINARY:+--binary "$DEPOT_BINARY"} --out "$FIXTURE" >"$BUILD/start-depot.log" 2>&1 &
  DEPOT_PID=$!
  # A first start (initdb, migrations) takes minutes on a machine busy with other builds.
  for _ in $(seq 1 1500); do
    [[ -s "$FIXTURE" ]] && break
    kill -0 "$DEPOT_PID" 2>/dev/null || { cat "$BUILD/start-depot.log" >&2; echo "start-depot exited" >&2; exit 1; }
    sleep 0.2
  done
  [[ -s "$FIXTURE" ]] || { cat "$BUILD/start-depot.log" >&2; echo "start-depot did not start within 300 s" >&2; exit 1; }
fi
echo "  depot: $(cat "$FIXTURE")"

tests=0
run env DEPOT_FIXTURE="$FIXTURE" java -cp "$BUILD/classes:$BUILD/test-classes" io.github.depothq.depot.TestRunner \
  JsonTest UnitTest LocalServerTest LiveDepotTest "${ONLY[@]}" || tests=$?

[[ ${#ONLY[@]} -eq 0 ]] || exit "$tests"
if [[ "${DEPOT_CONFORMANCE:-}" == skip ]]; then
  echo "(DEPOT_CONFORMANCE=skip: the conformance driver is sdk/conformance/check.ts's to run)"
  exit "$tests"
fi

# --- the conformance driver ------------------------------------------------------------------
field() { sed -E "s/.*\"$1\":\"([^\"]*)\".*/\\1/" "$FIXTURE"; }
server="$(field server)"
jwks="$(field jwks)"
product="$(field productId)"
key="$(field key)"
machine_key="$(field machineKey)"
other_key="$(field otherKey)"
passed=0
failed=0

# conform LABEL EXIT PATTERN ARGS...: run.sh java ARGS must exit EXIT with a line matching PATTERN.
conform() {
  local label="$1" want="$2" pattern="$3"
  shift 3
  local code=0 out
  out="$(bash "$ROOT/sdk/conformance/run.sh" java --jwks "$jwks" --product "$product" "$@" 2>"$BUILD/conform.err")" || code=$?
  if [[ $code -eq $want ]] && grep -Eq -- "$pattern" <<<"$out"; then
    passed=$((passed + 1))
    echo "ok   conformance: $label (exit $code) $out"
  else
    failed=$((failed + 1))
    echo "FAIL conformance: $label: exit $code (expected $want), output $out"
    cat "$BUILD/conform.err"
  fi
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

echo "+ sdk/conformance/run.sh java …"
conform "valid key" 0 '^\{"valid":true,"code":"VALID","verified":true\}$' --server "$server" --key "$key"
conform "another product's key" 1 '^\{"valid":false,"code":"PRODUCT_MISMATCH","verified":true\}$' --server "$server" --key "$other_key"
conform "a machine activated" 0 '^\{"valid":true,"code":"VALID","verified":true,"machine":\{"id":"[0-9a-f-]{36}"\}\}$' \
  --server "$server" --key "$machine_key" --fingerprint fp-x
conform "an upgrade" 0 '"upgrade":\{"version":"1\.1\.0"\}\}$' --server "$server" --key "$key" \
  --current-version 1.0.0 --platform linux --arch x86_64
conform "no upgrade" 0 '"upgrade":\{"version":null\}\}$' --server "$server" --key "$key" \
  --current-version 1.1.0 --platform linux --arch x86_64
conform "nobody listening" 3 '^\{"verified":false,"error":"unreachable","reason":".+"\}$' \
  --server "http://127.0.0.1:$(free_port)" --key "$key"
conform "usage" 64 '' --server "$server"
for mode in unsigned forged replayed swapped self-keyed; do
  port="$(free_port)"
  fake_key="$key"
  [[ "$mode" == swapped ]] && fake_key="$other_key"
  bun "$ROOT/scripts/fake-depot.ts" "$mode" "$server" "$fake_key" "$port" >"$BUILD/fake-$mode.log" 2>&1 &
  FAKE_PID=$!
  for _ in $(seq 1 100); do grep -q '^listening' "$BUILD/fake-$mode.log" && break; sleep 0.1; done
  conform "fake depot: $mode" 2 '^\{"verified":false,"error":"unverifiable","reason":".+"\}$' \
    --server "http://127.0.0.1:$port" --key "$key"
  kill "$FAKE_PID" 2>/dev/null || true
  wait "$FAKE_PID" 2>/dev/null || true
  FAKE_PID=""
done
echo "conformance: $passed passed, $failed failed"
[[ $failed -eq 0 && $tests -eq 0 ]]
