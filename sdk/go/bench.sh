#!/usr/bin/env bash
# The CPU cost of one verified validate in the Go library: a real answer of depot's (recorded in
# testdata/recorded-validate.json) checked in full — digest, Signature-Input, pinned key, Ed25519,
# created, JSON, nonce, key and product — N times in a loop, no network. Ed25519 alone on the same
# signature base is measured beside it: the difference is what the library adds.
#
#   sdk/go/bench.sh [COUNT]     (COUNT runs of each benchmark, default 5; prints the median)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
export GOFLAGS=-mod=mod GOPROXY=off
count="${1:-5}"
echo "+ go test -run '^\$' -bench 'BenchmarkVerifyValidate|BenchmarkEd25519Alone' -benchmem -benchtime 20000x -count $count ." >&2
out="$(go test -run '^$' -bench 'BenchmarkVerifyValidate|BenchmarkEd25519Alone' -benchmem -benchtime 20000x -count "$count" .)"
echo "$out"
median() { echo "$out" | awk -v name="$1" '$1 ~ "^" name { print $3 }' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
verify="$(median BenchmarkVerifyValidate)"
alone="$(median BenchmarkEd25519Alone)"
awk -v v="$verify" -v e="$alone" -v n="$count" 'BEGIN {
  printf "go: %.1f µs per verified validate (median of %d runs, %d ns/op); Ed25519 alone %.1f µs\n", v / 1000, n, v, e / 1000
}'
