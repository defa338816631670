#!/usr/bin/env bash
# Builds the library with the JDK alone (javac + jar, no Maven and no download):
#
#   sdk/java/build.sh [OUTDIR]
#
# writes OUTDIR/classes and OUTDIR/depot-client-0.1.0.jar (OUTDIR defaults to sdk/java/build, which
# git ignores). Java 17 or later.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:-$HERE/build}"
VERSION=0.1.0

rm -rf "$OUT/classes"
mkdir -p "$OUT/classes"
find "$HERE/src/main/java" -name '*.java' | sort >"$OUT/sources.txt"
javac --release 17 -encoding UTF-8 -Xlint:all -Werror -d "$OUT/classes" @"$OUT/sources.txt"
cp "$HERE/LICENSE" "$OUT/classes/LICENSE"
cat >"$OUT/manifest.txt" <<MANIFEST
Automatic-Module-Name: io.github.depothq.depot
Implementation-Title: depot-client
Implementation-Version: $VERSION
MANIFEST
jar --create --file "$OUT/depot-client-$VERSION.jar" --manifest "$OUT/manifest.txt" -C "$OUT/classes" .
