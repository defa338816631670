#!/usr/bin/env bash
# depot-client (Rust)'s tests, offline from Debian's crates (sdk/.cargo/config.toml):
#   1. clippy and rustfmt, when the toolchain has them;
#   2. cargo test: unit tests, doc tests, and the fake-server tests (tests/answers.rs, machines.rs,
#      license_files.rs, downloads.rs, status.rs); that the `tls` feature builds; the docs;
#   3. against a seeded depot (bun sdk/conformance/start-depot.ts): tests/live.rs, the conformance
#      driver (sdk/conformance/run.sh rust) against it and against scripts/fake-depot.ts in each
#      mode, then tests/outage.rs, which pauses that depot (SIGSTOP, then SIGCONT).
# DEPOT_FIXTURE=FILE uses a depot start-depot.ts already started (scripts/check-sdks.sh shares one
# between every library); DEPOT_CONFORMANCE=skip leaves the driver to sdk/conformance/check.ts.
# Everything builds into sdk/rust/target, the driver and the docs' example too (one build of the
# crates). Every step runs; the script exits non-zero when any failed, and names them.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
export PATH="$ROOT/node_modules/.bin:$PATH"
failed=()
WORK="$(mktemp -d)"
depot_pid=""
# start-depot runs in a process group of its own, its data directory under $WORK: stopping the
# group also stops the depot it started when start-depot itself failed or exited first, and
# nothing is left behind.
stop_depot() {
  if [[ -n "$depot_pid" ]]; then
    kill -TERM -- "-$depot_pid" 2>/dev/null
    wait "$depot_pid" 2>/dev/null
    depot_pid=""
  fi
}
cleanup() {
  stop_depot
  rm -rf "$WORK"
}
trap cleanup EXIT

step() {
  local name="$1"
  shift
  echo "+ $*"
  if ! "$@"; then failed+=("$name"); fi
}

# cargo reads sdk/.cargo/config.toml from here.
cd "$HERE" || exit 1

if cargo clippy --version >/dev/null 2>&1; then
  step clippy cargo clippy --all-targets -- -D warnings
else
  echo "(cargo clippy is not installed: skipped)"
fi
if cargo fmt --version >/dev/null 2>&1; then
  step rustfmt cargo fmt --check
fi
step "cargo test" cargo test
step "tls feature" cargo check --quiet --features tls
step "docs" env RUSTDOCFLAGS="-D warnings" cargo doc --quiet --no-deps

if [[ -n "${DEPOT_FIXTURE:-}" ]]; then
  echo "+ the depot of DEPOT_FIXTURE=$DEPOT_FIXTURE"
  cp "$DEPOT_FIXTURE" "$WORK/fixture.json"
fi
# On a loaded machine depot may miss start-depot's 90 s: a second try.
for _ in 1 2; do
  [[ -s "$WORK/fixture.json" ]] && break
  echo "+ bun sdk/conformance/start-depot.ts ${DEPOT_BINARY:+--binary $DEPOT_BINARY} --out $WORK/fixture.json"
  TMPDIR="$WORK" setsid bash -c 'cd "$0" && exec bun sdk/conformance/start-depot.ts ${2:+--binary "$2"} --out "$1" >/dev/null' "$ROOT" "$WORK/fixture.json" "${DEPOT_BINARY:-}" &
  depot_pid=$!
  while kill -0 "$depot_pid" 2>/dev/null && [[ ! -s "$WORK/fixture.json" ]]; do sleep 0.2; done
  [[ -s "$WORK/fixture.json" ]] && break
  stop_depot
done
if [[ ! -s "$WORK/fixture.json" ]]; then
  echo "test.sh: the seeded depot did not start"
  failed+=("start-depot")
else
  export DEPOT_FIXTURE="$WORK/fixture.json"
  field() { jq -r ".$1" "$DEPOT_FIXTURE"; }
  step "live tests" cargo test --test live -- --include-ignored

  # The conformance driver: expected exit code, then what the line must hold (a jq test).
  conform() {
    local want="$1" test="$2"
    shift 2
    local line code
    line="$(bash "$ROOT/sdk/conformance/run.sh" rust "$@")"
    code=$?
    echo "  $line (exit $code)"
    [[ "$code" == "$want" ]] && jq -e "$test" <<<"$line" >/dev/null
  }
  common=(--server "$(field server)" --jwks "$(field jwks)" --product "$(field productId)")
  if [[ "${DEPOT_CONFORMANCE:-}" == skip ]]; then
    echo "(DEPOT_CONFORMANCE=skip: the conformance driver is sdk/conformance/check.ts's to run)"
  else
  step "conformance: valid" conform 0 '.valid and .code == "VALID" and .verified' "${common[@]}" --key "$(field key)"
  step "conformance: other product" conform 1 '.code == "PRODUCT_MISMATCH"' "${common[@]}" --key "$(field otherKey)"
  step "conformance: fingerprint" conform 0 '.machine.id | length > 0' "${common[@]}" --key "$(field machineKey)" --fingerprint fp-x
  step "conformance: upgrade" conform 0 '.upgrade.version == "1.1.0"' "${common[@]}" --key "$(field key)" \
    --current-version 1.0.0 --platform linux --arch x86_64
  step "conformance: no upgrade" conform 0 '.upgrade.version == null' "${common[@]}" --key "$(field key)" \
    --current-version 1.1.0 --platform linux --arch x86_64
  port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
  step "conformance: unreachable" conform 3 '.error == "unreachable"' --server "http://127.0.0.1:$port" \
    --jwks "$(field jwks)" --product "$(field productId)" --key "$(field key)"
  for mode in unsigned forged replayed swapped self-keyed; do
    port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
    # swapped relays with the attacker's key (key) in place of the victim's (machineKey).
    victim="$(field key)"
    [[ "$mode" == swapped ]] && victim="$(field machineKey)"
    (cd "$ROOT" && exec bun scripts/fake-depot.ts "$mode" "$(field server)" "$(field key)" "$port" >"$WORK/fake.out") &
    fake=$!
    for _ in $(seq 1 150); do grep -q listening "$WORK/fake.out" 2>/dev/null && break; sleep 0.2; done
    step "conformance: fake-depot $mode" conform 2 '.error == "unverifiable"' --server "http://127.0.0.1:$port" \
      --jwks "$(field jwks)" --product "$(field productId)" --key "$victim"
    kill "$fake" 2>/dev/null
    wait "$fake" 2>/dev/null
  done
  fi

  step "outage test" cargo test --test outage -- --include-ignored
fi

if ((${#failed[@]})); then
  echo "FAILED: ${failed[*]}"
  exit 1
fi
echo "all Rust tests passed"
