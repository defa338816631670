#!/usr/bin/env bash
# The client libraries in sdk/ (issue 34), as CI runs them against the built binary:
#
#   bash scripts/check-sdks.sh dist/depot-linux-x64
#
# For every language folder sdk/<lang>/ (js, python, go, java, rust; others land later, each when it
# is ready): its own tests, sdk/<lang>/test.sh (given the binary as DEPOT_BINARY), then the
# conformance run of every language against the binary and the forging fake depot
# (sdk/conformance/check.ts). A language folder without its test.sh or its conformance driver
# (sdk/conformance/<lang>/), or a driver without its library, fails the run. Exit 1 on any failure.
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

declare -A took
failed=()
for lang in "${present[@]}"; do
  echo
  echo "=== sdk/$lang/test.sh"
  lang_started=$SECONDS
  if DEPOT_BINARY="$BINARY" bash "$ROOT/sdk/$lang/test.sh"; then
    took[$lang]="$((SECONDS - lang_started)) s"
  else
    took[$lang]="$((SECONDS - lang_started)) s, FAILED"
    failed+=("sdk/$lang/test.sh")
  fi
done

echo
echo "=== conformance: bun sdk/conformance/check.ts --binary $BINARY --lang $(IFS=,; echo "${present[*]}")"
conformance_started=$SECONDS
(cd "$ROOT" && bun sdk/conformance/check.ts --binary "$BINARY" --lang "$(IFS=,; echo "${present[*]}")") ||
  failed+=("sdk/conformance/check.ts")

echo
for lang in "${present[@]}"; do echo "check-sdks: sdk/$lang/test.sh: ${took[$lang]}"; done
echo "check-sdks: conformance: $((SECONDS - conformance_started)) s"
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "check-sdks: FAILED: ${failed[*]} ($((SECONDS - started)) s)" >&2
  exit 1
fi
echo "check-sdks: all passed in $((SECONDS - started)) s"
