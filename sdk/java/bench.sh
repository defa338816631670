#!/usr/bin/env bash
# The CPU cost of one verified validate in the Java library (verification alone, no network):
#
#   sdk/java/bench.sh [N]            # N verifications per round (default 10000)
#
# Starts a seeded depot (sdk/conformance/start-depot.ts) unless DEPOT_FIXTURE names a running one's
# fixture file, records one real validate answer, and verifies it N times after an N-times warm-up.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
BUILD="$HERE/build"
export PATH="$ROOT/node_modules/.bin:$PATH"

bash "$HERE/build.sh" "$BUILD" >&2
rm -rf "$BUILD/bench-classes"
javac --release 17 -encoding UTF-8 -cp "$BUILD/classes" -d "$BUILD/bench-classes" \
  "$HERE/src/test/java/io/github/depothq/depot/Bench.java" >&2

DEPOT_PID=""
trap '[[ -z "$DEPOT_PID" ]] || { kill "$DEPOT_PID" 2>/dev/null || true; wait "$DEPOT_PID" 2>/dev/null || true; }' EXIT
FIXTURE="${DEPOT_FIXTURE:-}"
if [[ -z "$FIXTURE" ]]; then
  FIXTURE="$BUILD/bench-fixture.json"
  rm -f "$FIXTURE"
  (cd "$ROOT" && exec bun sdk/conformance/start-depot.ts --out "$FIXTURE") >"$BUILD/bench-depot.log" 2>&1 &
  DEPOT_PID=$!
  for _ in $(seq 1 900); do
    [[ -s "$FIXTURE" ]] && break
    kill -0 "$DEPOT_PID" 2>/dev/null || { cat "$BUILD/bench-depot.log" >&2; exit 1; }
    sleep 0.2
  done
fi
java -cp "$BUILD/classes:$BUILD/bench-classes" io.github.depothq.depot.Bench "$FIXTURE" "${1:-10000}"
