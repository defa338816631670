#!/usr/bin/env bash
# The client libraries in sdk/ (issue 34), as CI runs them against the built binary:
#
#   bash scripts/check-sdks.sh dist/depot-linux-x64
#
# One seeded depot for everything (sdk/conformance/start-depot.ts on the binary: its start is the
# slow part), then for every language folder sdk/<lang>/ (js, python, go, java, rust): its own
# tests, sdk/<lang>/test.sh, against that depot (DEPOT_FIXTURE names its details; each test makes
# the licenses it takes seats on, and the ones that pause it to see depot unreachable resume it);
# then the conformance run of every language against it and the forging fake depot
# (sdk/conformance/check.ts, which the test.sh leave it to: DEPOT_CONFORMANCE=skip); then the quick
# starts of docs/integrators.md (scripts/check-sdk-docs.ts). The languages run one after the other
# (a test that pauses the shared depot must be alone with it). A language folder without its
# test.sh or its conformance driver (sdk/conformance/<lang>/), or a driver without its library,
# fails the run. Exit 1 on any failure.
set -euo pipefail

if [[ $# -ne 1 || ! -x "$1" ]]; then
  echo "usage: $0 PATH_TO_DEPOT_BINARY" >&2
  exit 2
fi
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BINARY="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
export PATH="$ROOT/node_modules/.bin:$PATH"
LANGUAGES=(js python go java rust)

started=$SECONDS
present=()
missing=()
for lang in "${LANGUAGES[@]}"; do
  library="$ROOT/sdk/$lang"
  driver="$ROOT/sdk/conformance/$lang"
  if [[ -d "$library" ]]; then
    [[ -f "$library/test.sh" ]] || missing+=("sdk/$lang has no test.sh")
    [[ -d "$driver" ]] || missing+=("sdk/$lang has no conformance driver (sdk/conformance/$lang/)")
    present+=("$lang")
  elif [[ -d "$driver" ]]; then
    missing+=("sdk/conformance/$lang has no library (sdk/$lang/)")
  fi
done
for other in "$ROOT"/sdk/*/; do
  name="$(basename "$other")"
  [[ "$name" == conformance || " ${LANGUAGES[*]} " == *" $name "* ]] ||
    missing+=("sdk/$name is not a known language (${LANGUAGES[*]}): add it to scripts/check-sdks.sh and check.ts")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  printf 'check-sdks: %s\n' "${missing[@]}" >&2
  exit 1
fi
if [[ ${#present[@]} -eq 0 ]]; then
  echo "check-sdks: no client library in sdk/" >&2
  exit 1
fi
echo "check-sdks: ${present[*]}; binary $BINARY"

# --- the shared depot ------------------------------------------------------------------------
# In a process group of its own, its data under our temporary folder: whatever happens, the exit
# trap leaves nothing running (resumed first, should a test have left it paused) or written.
work="$(mktemp -d "${TMPDIR:-/tmp}/depot-check-sdks-XXXXXX")"
fixture="$work/fixture.json"
depot_pid=""
stop_depot() {
  [[ -n "$depot_pid" ]] || return 0
  [[ -s "$fixture" ]] && kill -CONT "$(jq -r .pid "$fixture")" 2>/dev/null
  kill -TERM -- "-$depot_pid" 2>/dev/null
  wait "$depot_pid" 2>/dev/null
  depot_pid=""
}
trap 'stop_depot; rm -rf "$work"' EXIT
echo
echo "=== bun sdk/conformance/start-depot.ts --binary $BINARY --out $fixture"
depot_started=$SECONDS
(cd "$ROOT" && TMPDIR="$work" exec setsid bun sdk/conformance/start-depot.ts --binary "$BINARY" --out "$fixture" >/dev/null) &
depot_pid=$!
# A first start (initdb, migrations) takes minutes on a machine busy with other builds.
for _ in $(seq 1 1500); do
  [[ -s "$fixture" ]] && break
  kill -0 "$depot_pid" 2>/dev/null || break
  sleep 0.2
done
if [[ ! -s "$fixture" ]]; then
  echo "check-sdks: start-depot.ts did not start a depot" >&2
  exit 1
fi
depot_took=$((SECONDS - depot_started))
echo "check-sdks: depot at $(jq -r .server "$fixture") ($depot_took s)"

declare -A took
failed=()
for lang in "${present[@]}"; do
  echo
  echo "=== sdk/$lang/test.sh"
  lang_started=$SECONDS
  if DEPOT_FIXTURE="$fixture" DEPOT_BINARY="$BINARY" DEPOT_CONFORMANCE=skip bash "$ROOT/sdk/$lang/test.sh"; then
    took[$lang]="$((SECONDS - lang_started)) s"
  else
    took[$lang]="$((SECONDS - lang_started)) s, FAILED"
    failed+=("sdk/$lang/test.sh")
  fi
done

langs="$(IFS=,; echo "${present[*]}")"
echo
echo "=== conformance: bun sdk/conformance/check.ts --fixture $fixture --lang $langs"
conformance_started=$SECONDS
(cd "$ROOT" && bun sdk/conformance/check.ts --fixture "$fixture" --lang "$langs") ||
  failed+=("sdk/conformance/check.ts")
conformance_took=$((SECONDS - conformance_started))

echo
echo "=== the quick starts of docs/integrators.md: bun scripts/check-sdk-docs.ts --fixture $fixture --lang $langs"
docs_started=$SECONDS
(cd "$ROOT" && bun scripts/check-sdk-docs.ts --fixture "$fixture" --lang "$langs") ||
  failed+=("scripts/check-sdk-docs.ts")
docs_took=$((SECONDS - docs_started))
stop_depot

echo
echo "check-sdks: the shared depot: $depot_took s to start"
for lang in "${present[@]}"; do echo "check-sdks: sdk/$lang/test.sh: ${took[$lang]}"; done
echo "check-sdks: conformance: $conformance_took s"
echo "check-sdks: docs' quick starts: $docs_took s"
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "check-sdks: FAILED: ${failed[*]} ($((SECONDS - started)) s)" >&2
  exit 1
fi
echo "check-sdks: all passed in $((SECONDS - started)) s"
