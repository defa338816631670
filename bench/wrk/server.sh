# Sourced by bench/wrk/validate.sh and bench/wrk/rollups.sh, after they set $dir (a fresh directory):
# the validate benchmark's database ($db; bench/validate.ts seeds it, DATABASE_URL overrides it), 2,000
# of its keys in $KEYS_FILE for validate.lua, and how a server is started on it.
db=${DATABASE_URL:-postgres://root@127.0.0.1:5432/depot_bench_validate}
export KEYS_FILE=$dir/keys.txt PRODUCT_ID=${PRODUCT_ID:-1}
psql -Atq "$db" -c "SELECT key FROM licenses ORDER BY id LIMIT 2000" > "$KEYS_FILE"

# serve PORT DATA_DIR STDERR COMMAND...: COMMAND in the background, its pid in $served, with the
# database, PORT, HOST, APP_URL, DATA_DIR, LOG_LEVEL (default info), the benchmarks' APP_KEY and
# DATABASE_POOL_SIZE (default 10: the references' pool, and depot's when these numbers were measured).
serve() {
  local port=$1 data=$2 err=$3
  shift 3
  ( exec env DATABASE_URL="$db" PORT="$port" HOST=127.0.0.1 APP_URL="http://127.0.0.1:$port" \
    DATA_DIR="$data" LOG_LEVEL="${LOG_LEVEL:-info}" APP_KEY=depot-bench-app-key-0123456789abcdef0123 \
    DATABASE_POOL_SIZE="${DATABASE_POOL_SIZE:-10}" "$@" > /dev/null 2> "$err" ) &
  served=$!
}

# answering PORT [PATH]: waits up to 30 s for PATH (default /api/health) to answer 2xx; fails if it never does.
answering() {
  for _ in $(seq 1 150); do curl -sf -o /dev/null "http://127.0.0.1:$1${2:-/api/health}" && return 0; sleep 0.2; done
  return 1
}

