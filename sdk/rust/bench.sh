#!/usr/bin/env bash
# The CPU cost of one verified validate in depot-client (Rust), without the network: one real
# answer recorded from a seeded depot, verified N times (examples/bench.rs), release build.
#
#   sdk/rust/bench.sh [N]               starts a seeded depot (start-depot.ts) for the recording
#   DEPOT_FIXTURE=FILE sdk/rust/bench.sh [N]   uses the one FILE describes
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
N="${1:-20000}"
# The conformance driver's build folder: its release build of ring & co. is reused.
TARGET="$ROOT/sdk/conformance/.build/rust"
WORK="$(mktemp -d)"
depot_pid=""
cleanup() {
  # start-depot's process group: it and the depot it started.
  if [[ -n "$depot_pid" ]]; then kill -TERM -- "-$depot_pid" 2>/dev/null || true; wait "$depot_pid" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

echo "+ cargo build --release --example bench" >&2
(cd "$HERE" && cargo build --quiet --release --example bench --target-dir "$TARGET")

fixture="${DEPOT_FIXTURE:-}"
if [[ -z "$fixture" ]]; then
  fixture="$WORK/fixture.json"
  echo "+ bun sdk/conformance/start-depot.ts --out $fixture" >&2
  PATH="$ROOT/node_modules/.bin:$PATH" TMPDIR="$WORK" setsid bash -c \
    'cd "$0" && exec bun sdk/conformance/start-depot.ts --out "$1" >/dev/null' "$ROOT" "$fixture" &
  depot_pid=$!
  while kill -0 "$depot_pid" 2>/dev/null && [[ ! -s "$fixture" ]]; do sleep 0.2; done
  [[ -s "$fixture" ]] || { echo "bench.sh: the seeded depot did not start" >&2; exit 1; }
fi

field() { jq -r ".$1" "$fixture"; }
nonce="bench-$(date +%s)"
echo "+ curl -D headers -o body \$server/api/v1/licenses/validate" >&2
curl -sf -D "$WORK/headers" -o "$WORK/body" -H 'content-type: application/json' \
  -d "{\"key\":\"$(field key)\",\"productId\":\"$(field productId)\",\"nonce\":\"$nonce\"}" \
  "$(field server)/api/v1/licenses/validate"

"$TARGET/release/examples/bench" "$WORK/headers" "$WORK/body" "$(field jwks)" \
  "$(field productId)" "$(field key)" "$nonce" "$N"
