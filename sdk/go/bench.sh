#!/usr/bin/env bash
# The CPU cost of one verified validate in the Go library: a real answer of depot's (recorded in
# testdata/recorded-validate.json) checked in full — digest, Signature-Input, pinned key, Ed25519,
# created, JSON, nonce, key and product — N times in a loop, no network. Ed25519 alone on the same
# signature base is measured beside it: the difference is what the library adds. Each reports
# ns/op (wall time) and cpu-ns/op (the process's CPU time per operation, which a busy machine does
# not inflate).
#
#   sdk/go/bench.sh [COUNT]     (COUNT runs of each benchmark, default 5; prints the medians)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
export GOFLAGS=-mod=mod GOPROXY=off
count="${1:-5}"
echo "+ go test -run '^\$' -bench 'BenchmarkVerifyValidate|BenchmarkEd25519Alone' -benchmem -benchtime 20000x -count $count ." >&2
out="$(go test -run '^$' -bench 'BenchmarkVerifyValidate|BenchmarkEd25519Alone' -benchmem -benchtime 20000x -count "$count" .)"
echo "$out"
# median NAME UNIT: the median of the value before UNIT on NAME's lines.
median() {
  echo "$out" | awk -v name="$1" -v unit="$2" '$1 ~ "^" name { for (i = 2; i <= NF; i++) if ($i == unit) print $(i - 1) }' |
    sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print 0 }'
}
awk -v wall="$(median BenchmarkVerifyValidate ns/op)" -v cpu="$(median BenchmarkVerifyValidate cpu-ns/op)" \
  -v edwall="$(median BenchmarkEd25519Alone ns/op)" -v edcpu="$(median BenchmarkEd25519Alone cpu-ns/op)" -v n="$count" 'BEGIN {
  printf "go: %.1f µs CPU per verified validate (%.1f µs wall), Ed25519 alone %.1f µs CPU (%.1f µs wall); medians of %d runs\n",
    cpu / 1000, wall / 1000, edcpu / 1000, edwall / 1000, n
}'
