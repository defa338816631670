#!/usr/bin/env bash
# sdk/js's own tests (sdk/SDK-BRIEF item 4), run from anywhere:
#
#   bash sdk/js/test.sh
#
# Builds the package (tsc → dist/) and the tests (→ .build/), checks that the published files and
# declarations are usable by an app (npm pack, a strict consumer typecheck), starts a seeded depot
# (sdk/conformance/start-depot.ts; from source, or DEPOT_BINARY when set), then runs every test file
# under Node (node --test) and under Bun (bun test). The tests import the package by its name, so
# both runtimes test dist/ as it would be published. DEPOT_FIXTURE=FILE uses a depot already running.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
export PATH="$ROOT/node_modules/.bin:$PATH"
cd "$HERE"

run() {
  echo "+ $*"
  "$@"
}

echo "sdk/js: node $(node --version), bun $(bun --version), tsc $(tsc --version | cut -d' ' -f2)"
run rm -rf dist .build
run tsc -p tsconfig.json
run tsc -p tsconfig.test.json

# What `npm publish` would ship: the build, the README and the licence, nothing else.
packed="$(npm pack --dry-run --json 2>/dev/null | node -e 'console.log(JSON.parse(require("fs").readFileSync(0, "utf8"))[0].files.map((f) => f.path).sort().join(" "))')"
echo "npm pack: $packed"
for needed in LICENSE README.md package.json dist/index.js dist/index.d.ts; do
  [[ " $packed " == *" $needed "* ]] || { echo "test.sh: npm pack leaves out $needed" >&2; exit 1; }
done
[[ " $packed " != *" src/"* && " $packed " != *" test/"* ]] || { echo "test.sh: npm pack ships src/ or test/" >&2; exit 1; }

# The declarations as an app's strict tsc reads them (no skipLibCheck), under both resolutions.
consumer="$HERE/.build/consumer"
mkdir -p "$consumer/node_modules"
ln -sfn "$HERE" "$consumer/node_modules/depot-client"
cat >"$consumer/app.ts" <<'TS'
import { Client, RefusedError, UnreachableError, UnverifiableError, type Validation } from "depot-client";
const client = new Client({ server: "https://licenses.example.com", productId: "1", jwks: '{"keys":[]}' });
export async function check(key: string): Promise<Validation | string> {
  try {
    return await client.validate(key);
  } catch (error) {
    if (error instanceof UnverifiableError) return `unverifiable: ${error.check}`;
    if (error instanceof UnreachableError || error instanceof RefusedError) return error.message;
    throw error;
  }
}
TS
for resolution in NodeNext Bundler; do
  module=$([[ $resolution == NodeNext ]] && echo NodeNext || echo ESNext)
  run tsc --noEmit --strict --skipLibCheck false --target ES2022 --module "$module" --moduleResolution "$resolution" \
    --types node --typeRoots "$ROOT/node_modules/@types" "$consumer/app.ts"
done

pids=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT

if [[ -z "${DEPOT_FIXTURE:-}" ]]; then
  export DEPOT_FIXTURE="$HERE/.build/fixture.json"
  binary=()
  [[ -n "${DEPOT_BINARY:-}" ]] && binary=(--binary "$DEPOT_BINARY")
  echo "+ bun sdk/conformance/start-depot.ts ${binary[*]} --out $DEPOT_FIXTURE"
  (cd "$ROOT" && exec bun sdk/conformance/start-depot.ts "${binary[@]}" --out "$DEPOT_FIXTURE" >/dev/null) &
  pids+=($!)
  for _ in $(seq 1 3600); do
    [[ -s "$DEPOT_FIXTURE" ]] && break
    kill -0 "${pids[0]}" 2>/dev/null || { echo "test.sh: start-depot.ts exited" >&2; exit 1; }
    sleep 0.1
  done
  [[ -s "$DEPOT_FIXTURE" ]] || { echo "test.sh: no depot after 6 minutes" >&2; exit 1; }
fi
echo "depot: $(cat "$DEPOT_FIXTURE")"

failed=0
run node --test --test-reporter=spec .build/test/*.test.js || failed=1
run bun test --timeout 60000 ./test/ || failed=1
if [[ $failed -ne 0 ]]; then
  echo "sdk/js: tests FAILED" >&2
  exit 1
fi
echo "sdk/js: all tests passed (Node and Bun)"
