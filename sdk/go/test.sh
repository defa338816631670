#!/usr/bin/env bash
# The Go library's tests, as CI runs them (prints each command; exits non-zero if any step failed):
#
#   1. gofmt -l (nothing to say) and go vet, for the library and its conformance driver;
#   2. go test: the tests against a depot inside the test (httptest, a key made in the test);
#   3. a real depot (bun sdk/conformance/start-depot.ts): the live tests (live_test.go), then the
#      conformance driver through sdk/conformance/run.sh go, against depot and against
#      scripts/fake-depot.ts in each of its modes;
#   4. the server paused (SIGSTOP, then SIGCONT): Status from what the live run kept in its
#      StateDir, in a new process.
#
# DEPOT_FIXTURE=FILE uses a depot start-depot.ts already started (scripts/check-sdks.sh shares one
# between every library); DEPOT_CONFORMANCE=skip leaves the driver to sdk/conformance/check.ts.
#
# Needs go ≥ 1.19 (Debian's golang-go), bun and jq; GOPROXY=off, the standard library only.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
CONFORMANCE="$ROOT/sdk/conformance"
export GOFLAGS=-mod=mod GOPROXY=off
export PATH="$ROOT/node_modules/.bin:$PATH"

failed=()
run() {
  echo "+ $*" >&2
  "$@" || { failed+=("$*"); return 1; }
}

# --- 1. format and vet ------------------------------------------------------------------------
unformatted="$(cd "$HERE" && gofmt -l . "$CONFORMANCE/go")"
echo "+ gofmt -l sdk/go sdk/conformance/go" >&2
if [[ -n "$unformatted" ]]; then
  echo "not gofmt-formatted: $unformatted" >&2
  failed+=("gofmt -l")
fi
run bash -c "cd '$HERE' && go vet ./..."
run bash -c "cd '$CONFORMANCE/go' && go vet ./..."

# --- 2. against a depot inside the test -------------------------------------------------------
run bash -c "cd '$HERE' && env -u DEPOT_FIXTURE -u DEPOT_STATE_DIR -u DEPOT_SERVER_PAUSED go test -count=1 ./..."

# --- 3. against a real depot ------------------------------------------------------------------
work="$(mktemp -d "${TMPDIR:-/tmp}/depot-sdk-go-XXXXXX")"
depot_pid=""
fake_pid=""
cleanup() {
  [[ -n "$fake_pid" ]] && kill "$fake_pid" 2>/dev/null
  if [[ -n "$depot_pid" ]]; then
    # start-depot stops its server on SIGTERM; the group catches a server it left behind.
    kill "$depot_pid" 2>/dev/null && wait "$depot_pid" 2>/dev/null
    kill -- "-$depot_pid" 2>/dev/null
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# DEPOT_FIXTURE: a depot already running (start-depot's file).
fixture="${DEPOT_FIXTURE:-}"
if [[ -z "$fixture" ]]; then
  fixture="$work/fixture.json"
  echo "+ bun sdk/conformance/start-depot.ts --out $fixture &" >&2
  # A process group of its own (setsid), and its temporary directory inside ours (TMPDIR): whatever
  # happens to it, cleanup leaves nothing running or written.
  (cd "$ROOT" && TMPDIR="$work" exec setsid bun sdk/conformance/start-depot.ts ${DEPOT_BINARY:+--binary "$DEPOT_BINARY"} --out "$fixture" >/dev/null) &
  depot_pid=$!
  for _ in $(seq 1 360); do
    [[ -s "$fixture" ]] && break
    kill -0 "$depot_pid" 2>/dev/null || break
    sleep 0.5
  done
  if [[ ! -s "$fixture" ]]; then
    echo "start-depot did not start a depot" >&2
    exit 1
  fi
fi
field() { jq -r ".$1" "$fixture"; }
server="$(field server)" jwks="$(field jwks)" product="$(field productId)"
key="$(field key)" machine_key="$(field machineKey)" other_key="$(field otherKey)"

state="$work/state"
run bash -c "cd '$HERE' && DEPOT_FIXTURE='$fixture' DEPOT_STATE_DIR='$state' go test -count=1 -run '^TestLive' -v ."

# The driver: one JSON line, and its exit code.
if [[ "${DEPOT_CONFORMANCE:-}" == skip ]]; then
  echo "(DEPOT_CONFORMANCE=skip: the conformance driver is sdk/conformance/check.ts's to run)" >&2
else
expect() {
  local want_exit="$1" want_json="$2"
  shift 2
  echo "+ sdk/conformance/run.sh go $*" >&2
  local line status
  line="$("$CONFORMANCE/run.sh" go "$@")"
  status=$?
  echo "$line"
  if [[ "$status" != "$want_exit" ]] || ! jq -e "$want_json" <<<"$line" >/dev/null; then
    echo "  want exit $want_exit and $want_json, got exit $status" >&2
    failed+=("run.sh go $*")
  fi
}
common=(--server "$server" --jwks "$jwks" --product "$product")
expect 0 '.valid == true and .code == "VALID" and .verified == true' "${common[@]}" --key "$key"
expect 1 '.valid == false and .code == "PRODUCT_MISMATCH" and .verified == true' "${common[@]}" --key "$other_key"
expect 0 '.valid == true and (.machine.id | length) > 0' "${common[@]}" --key "$machine_key" --fingerprint fp-x
expect 0 '.upgrade.version == "1.1.0"' "${common[@]}" --key "$key" --current-version 1.0.0 --platform linux --arch x86_64
expect 0 '.upgrade.version == null' "${common[@]}" --key "$key" --current-version 1.1.0 --platform linux --arch x86_64
nobody="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
expect 3 '.verified == false and .error == "unreachable"' --server "http://127.0.0.1:$nobody" --jwks "$jwks" --product "$product" --key "$key"
echo "+ sdk/conformance/run.sh go --server $server (no --key)" >&2
"$CONFORMANCE/run.sh" go --server "$server" --jwks "$jwks" >/dev/null 2>&1
[[ $? == 64 ]] || failed+=("run.sh go without --key: not 64")

# Every forging mode of scripts/fake-depot.ts: exit 2. The fake answers about the driver's own key,
# except swapped, which relays for another license of the product (the attacker's own).
for mode in unsigned forged replayed swapped self-keyed; do
  port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  license="$key"
  [[ "$mode" == swapped ]] && license="$machine_key"
  echo "+ bun scripts/fake-depot.ts $mode $server … $port &" >&2
  (cd "$ROOT" && exec bun scripts/fake-depot.ts "$mode" "$server" "$license" "$port" >"$work/fake.out" 2>&1) &
  fake_pid=$!
  for _ in $(seq 1 100); do grep -q listening "$work/fake.out" 2>/dev/null && break; sleep 0.1; done
  expect 2 '.verified == false and .error == "unverifiable"' --server "http://127.0.0.1:$port" --jwks "$jwks" --product "$product" --key "$key"
  kill "$fake_pid" 2>/dev/null
  wait "$fake_pid" 2>/dev/null
  fake_pid=""
done
fi

# --- 4. the server paused ---------------------------------------------------------------------
# SIGSTOP: depot takes connections and never answers (the clients' timeouts end them), whichever
# depot it is; SIGCONT (also on the way out) lets it go on for whoever shares it.
server_pid="$(field pid)"
resume() { kill -CONT "$server_pid" 2>/dev/null; }
trap 'resume; cleanup' EXIT
echo "+ kill -STOP $server_pid (depot paused)" >&2
kill -STOP "$server_pid"
run bash -c "cd '$HERE' && DEPOT_FIXTURE='$fixture' DEPOT_STATE_DIR='$state' DEPOT_SERVER_PAUSED=1 go test -count=1 -run '^TestLiveStatusWhileTheServerIsPaused$' -v ."
echo "+ kill -CONT $server_pid (depot resumed)" >&2
resume

if ((${#failed[@]})); then
  echo "sdk/go: FAILED:" >&2
  printf '  %s\n' "${failed[@]}" >&2
  exit 1
fi
echo "sdk/go: all tests passed" >&2
