#!/usr/bin/env bash
# The verification benchmark on Node and on Bun (bench/verify.ts): µs per verified validate.
#   bash sdk/js/bench/run.sh [N]
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PATH="$HERE/../../node_modules/.bin:$PATH"
cd "$HERE"
tsc -p tsconfig.test.json
node .build/bench/verify.js "$@"
bun bench/verify.ts "$@"
