# Shared by scripts/smoke-binary.sh and scripts/verify-examples.sh, which drive the compiled binary
# from an empty directory. Source it after setting:
#   NAME  the prefix of every message ("smoke")
#   BIN   the absolute path of the binary
#   WORK  an empty temporary directory (removed on exit; its *.log files are printed on failure)
# and, optionally, SERVER_DIR (where the binary runs: $WORK by default) and SERVER_ENV (an array
# of VAR=value for every run of the binary). It sets PORT and BASE, and an EXIT handler that cleans up.

SERVER_PID=""
STEP="setup"
SERVER_DIR="${SERVER_DIR:-$WORK}"
[[ -v SERVER_ENV ]] || SERVER_ENV=()

step() {
  STEP="$*"
  echo "$NAME: $*"
}

fail() {
  echo "$NAME: $*" >&2
  exit 1
}

# stop_pid PID: SIGTERM, then SIGKILL after 5 s.
stop_pid() {
  kill -TERM "$1" 2>/dev/null || true
  for _ in $(seq 1 50); do
    kill -0 "$1" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}

# On exit: stop what runs (a script may define stop_others for its own processes), print the logs
# if something failed, remove the work directory.
cleanup() {
  local status=$?
  trap - EXIT
  if declare -F stop_others >/dev/null; then stop_others; fi
  [[ -z "$SERVER_PID" ]] || stop_pid "$SERVER_PID"
  if [[ $status -ne 0 ]]; then
    echo "$NAME: FAILED at step: $STEP (exit $status)" >&2
    for f in "$WORK"/*.log; do
      [[ -f "$f" ]] || continue
      echo "----- $(basename "$f") -----" >&2
      cat "$f" >&2
    done
    echo "----- end of logs -----" >&2
  fi
  rm -rf "$WORK"
  exit "$status"
}
trap cleanup EXIT

# A TCP port nobody listens on (bash's /dev/tcp: a refused connection means it is free).
port_is_free() {
  ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}
free_port() {
  local candidate
  for _ in $(seq 1 50); do
    candidate=$((18000 + RANDOM % 1000))
    if [[ "$candidate" != "${PORT:-}" ]] && port_is_free "$candidate"; then
      echo "$candidate"
      return 0
    fi
  done
  fail "no free port found in 18000-18999"
}
PORT="$(free_port)"
BASE="http://127.0.0.1:$PORT"

# Runs the binary in SERVER_DIR: embedded database in ./data, our port.
depot() {
  (cd "$SERVER_DIR" && env PORT="$PORT" HOST=127.0.0.1 "${SERVER_ENV[@]}" "$BIN" "$@")
}

# start_server LOG: `depot serve` in the background until /api/health answers {"status":"ok"}.
start_server() {
  local log="$1"
  # Not through depot(): a backgrounded function is a subshell, and $! must be the binary itself.
  (cd "$SERVER_DIR" && exec env PORT="$PORT" HOST=127.0.0.1 "${SERVER_ENV[@]}" "$BIN" serve) >"$log" 2>&1 &
  SERVER_PID=$!
  local body=""
  local deadline=$((SECONDS + 60))
  while ((SECONDS < deadline)); do
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
      wait "$SERVER_PID" || true
      SERVER_PID=""
      fail "depot serve exited before answering /api/health"
    fi
    body="$(curl -sS --max-time 2 "$BASE/api/health" 2>/dev/null || true)"
    if [[ "$body" == '{"status":"ok"}' ]]; then
      # -f: the final check must also be an HTTP success.
      curl -fsS --max-time 5 "$BASE/api/health" >/dev/null
      return 0
    fi
    sleep 0.3
  done
  fail "depot serve did not answer /api/health with {\"status\":\"ok\"} within 60 s (last body: ${body:-none})"
}

stop_server() {
  kill -TERM "$SERVER_PID"
  local code=0
  wait "$SERVER_PID" || code=$?
  SERVER_PID=""
  [[ $code -eq 0 ]] || fail "depot serve exited with $code after SIGTERM (expected 0)"
}

# Runs JavaScript: node when there is one, or the binary's own Bun.
run_js() {
  if command -v node >/dev/null 2>&1; then
    node "$@"
  else
    BUN_BE_BUN=1 "$BIN" "$@"
  fi
}

# json_path EXPR FILE: evaluates a JavaScript expression over the JSON in FILE, bound to `d`.
json_path() {
  run_js -e 'const d=JSON.parse(require("fs").readFileSync(process.argv.at(-1),"utf8"));const v=eval(process.argv.at(-2));if(v===undefined||v===null)process.exit(1);process.stdout.write(String(v))' "$1" "$2"
}
