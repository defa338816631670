#!/usr/bin/env bash
# Runs one language's conformance driver (sdk/README.md, "The conformance suite"):
#
#   sdk/conformance/run.sh LANG --server URL --jwks FILE --product ID --key KEY \
#     [--fingerprint FP] [--current-version V --platform P --arch A]
#
# LANG is js, python, go, java or rust. The driver is built first when it needs building (into
# sdk/conformance/.build, which git ignores); its one JSON line and exit code are the driver's own:
# 0 valid and verified, 1 verified but not valid, 2 unverifiable, 3 unreachable, 64 usage.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SDK="$(dirname "$HERE")"
BUILD="$HERE/.build"

if [[ $# -lt 1 ]]; then
  echo "usage: $0 js|python|go|java|rust --server URL --jwks FILE --product ID --key KEY [--fingerprint FP] [--current-version V --platform P --arch A]" >&2
  exit 64
fi
lang="$1"
shift
mkdir -p "$BUILD"

# Builds print nothing on success: stdout is the driver's one JSON line.
case "$lang" in
  js)
    exec bun "$HERE/js/driver.ts" "$@"
    ;;
  python)
    PYTHONPATH="$SDK/python/src${PYTHONPATH:+:$PYTHONPATH}" exec python3 "$HERE/python/driver.py" "$@"
    ;;
  go)
    (cd "$HERE/go" && GOFLAGS=-mod=mod GOPROXY=off go build -o "$BUILD/go-driver" . ) >&2
    exec "$BUILD/go-driver" "$@"
    ;;
  java)
    bash "$HERE/java/build.sh" "$BUILD/java" >&2
    # One call and out: the quick compiler and the serial collector start the JVM for a third less CPU.
    exec java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp "$BUILD/java" Driver "$@"
    ;;
  rust)
    # From inside sdk/, so that cargo reads sdk/.cargo/config.toml (Debian's crates, offline); into
    # the library's own target folder, in its dev profile, so that the crates sdk/rust/test.sh built
    # are built once.
    (cd "$HERE/rust" && cargo build --quiet --target-dir "$SDK/rust/target") >&2
    exec "$SDK/rust/target/debug/depot-conformance" "$@"
    ;;
  *)
    echo "run.sh: unknown language '$lang' (js, python, go, java or rust)" >&2
    exit 64
    ;;
esac
