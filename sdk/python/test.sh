#!/usr/bin/env bash
# depot-client (Python)'s tests: static checks, then the unittest suite under every Python given
# (default: `python3` on PATH and Debian's /usr/bin/python3, each with its own `cryptography`),
# against a seeded depot started here once (sdk/conformance/start-depot.ts) and servers inside
# the tests. Exits non-zero when anything fails.
#
#   sdk/python/test.sh [PYTHON …]
#
# DEPOT_FIXTURE=FILE uses a depot start-depot.ts already started (scripts/check-sdks.sh shares one
# between every library); DEPOT_CONFORMANCE=skip leaves the driver to sdk/conformance/check.ts.
# Needs: bun (node_modules/.bin of the repository), Debian's `mypy` (apt-get install -y mypy).
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
export PATH="$ROOT/node_modules/.bin:$PATH"
cd "$HERE"

failed=0
run() {
  echo "+ $*" >&2
  "$@" || { echo "FAILED: $*" >&2; failed=1; }
}

if [[ $# -gt 0 ]]; then
  pythons=("$@")
else
  pythons=()
  seen=" "
  for candidate in python3 /usr/bin/python3; do
    # The same interpreter twice (CI has only Debian's) runs once.
    real="$("$candidate" -c 'import os, sys; print(os.path.realpath(sys.executable))' 2>/dev/null)" || continue
    [[ "$seen" == *" $real "* ]] && continue
    seen+="$real "
    pythons+=("$candidate")
  done
fi

# --- static checks ---------------------------------------------------------------------------

# Python 3.9 syntax (no match, no parenthesised context managers …) everywhere the package runs.
run python3 - <<'EOF'
import ast, pathlib, sys
files = sorted(pathlib.Path("src").rglob("*.py")) + [pathlib.Path("../conformance/python/driver.py")]
for path in files:
    ast.parse(path.read_text(), str(path), feature_version=(3, 9))
print(f"python 3.9 syntax: {len(files)} files")
EOF

if command -v mypy >/dev/null; then
  run env MYPYPATH=src mypy --strict --python-version 3.9 --no-error-summary src ../conformance/python/driver.py
else
  echo "FAILED: mypy is not installed (apt-get install -y mypy)" >&2
  failed=1
fi

# The package metadata a release publishes (python3 -m build reads the same file).
run python3 - <<'EOF'
import pathlib, re, sys
try:
    import tomllib
except ImportError:  # Python < 3.11 has no TOML reader: the build backend checks it then
    print("pyproject.toml: not checked (no tomllib)"); sys.exit(0)
project = tomllib.loads(pathlib.Path("pyproject.toml").read_text())["project"]
version = re.search(r'__version__ = "([^"]+)"', pathlib.Path("src/depot_client/_version.py").read_text())[1]
assert project["name"] == "depot-client", project["name"]
assert project["version"] == version == "0.1.0", (project["version"], version)
assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]
assert project["requires-python"] == ">=3.9"
assert [d.split(">")[0] for d in project["dependencies"]] == ["cryptography"]
assert project["urls"]["Repository"] == "https://github.com/depothq/depot"
assert "API" in project["description"]
for required in ("LICENSE", "README.md", "src/depot_client/py.typed"):
    assert pathlib.Path(required).is_file(), required
print(f"pyproject.toml: {project['name']} {project['version']}, {project['license']}")
EOF

# --- a seeded depot, once for every interpreter --------------------------------------------------

work="$(mktemp -d)"
depot_pid=""
# start-depot.ts runs in a process group of its own: a start that fails part-way can leave its
# `depot serve` behind, and the group is how that one is found and stopped too.
stop_depot() {
  [[ -n "$depot_pid" ]] || return 0
  kill -TERM "$depot_pid" 2>/dev/null
  for _ in $(seq 1 60); do kill -0 "$depot_pid" 2>/dev/null || break; sleep 0.25; done
  for pid in $(pgrep -g "$depot_pid" 2>/dev/null); do
    left="$(readlink "/proc/$pid/cwd" 2>/dev/null)"
    kill -TERM "$pid" 2>/dev/null
    [[ "$left" == /tmp/depot-sdk-* ]] && { sleep 1; rm -rf "$left"; }
  done
  wait "$depot_pid" 2>/dev/null
  depot_pid=""
}
cleanup() {
  stop_depot
  rm -rf "$work"
}
trap cleanup EXIT
if [[ -n "${DEPOT_FIXTURE:-}" ]]; then
  echo "+ the depot of DEPOT_FIXTURE=$DEPOT_FIXTURE" >&2
  cp "$DEPOT_FIXTURE" "$work/fixture.json"
fi
# On a busy machine depot may take longer than start-depot's 90 s to become healthy: try again.
for attempt in 1 2 3; do
  [[ -s "$work/fixture.json" ]] && break
  echo "+ bun sdk/conformance/start-depot.ts --out $work/fixture.json (attempt $attempt)" >&2
  (cd "$ROOT" && exec setsid bun sdk/conformance/start-depot.ts ${DEPOT_BINARY:+--binary "$DEPOT_BINARY"} --out "$work/fixture.json" >/dev/null) &
  depot_pid=$!
  for _ in $(seq 1 400); do
    [[ -s "$work/fixture.json" ]] && break
    kill -0 "$depot_pid" 2>/dev/null || break
    sleep 0.5
  done
  [[ -s "$work/fixture.json" ]] && break
  stop_depot
done
if [[ ! -s "$work/fixture.json" ]]; then
  echo "FAILED: start-depot.ts did not start a depot" >&2
  exit 1
fi
export DEPOT_FIXTURE="$work/fixture.json"

# --- the suite, under each interpreter ------------------------------------------------------------

for python in "${pythons[@]}"; do
  "$python" -c 'import sys, cryptography; print(f"== {sys.executable}: Python {sys.version.split()[0]}, cryptography {cryptography.__version__}")'
  run env PYTHONPATH="src:tests" PYTHONDONTWRITEBYTECODE=1 "$python" -m unittest discover -s tests -t tests -p 'test_*.py'
done

if [[ $failed != 0 ]]; then
  echo "sdk/python/test.sh: FAILED" >&2
  exit 1
fi
echo "sdk/python/test.sh: all passed"
