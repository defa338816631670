#!/usr/bin/env bash
# Compiles the Java library (sdk/java/src/main/java) and the conformance Driver into OUTDIR, for
# sdk/conformance/run.sh java. Does nothing when OUTDIR/Driver.class is newer than every source.
# Prints nothing on success.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
LIB="$(cd "$HERE/../../java/src/main/java" && pwd)"
OUT="${1:?usage: build.sh OUTDIR}"

if [[ -f "$OUT/Driver.class" ]] && [[ -z "$(find "$LIB" "$HERE/Driver.java" -name '*.java' -newer "$OUT/Driver.class" -print -quit)" ]]; then
  exit 0
fi
rm -rf "$OUT"
mkdir -p "$OUT"
javac --release 17 -encoding UTF-8 -Xlint:all -Werror -d "$OUT" $(find "$LIB" -name '*.java') "$HERE/Driver.java"
