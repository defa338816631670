#!/bin/bash
# One validate run under wrk (Debian's, C: `apt-get install -y wrk`), for bench/README.md "Round three".
#
#   bench/wrk/validate.sh NAME PORT -- COMMAND...     e.g.
#   bench/wrk/validate.sh ref 7201 -- bun bench/validate-reference.ts          (HEALTH=/health)
#   bench/wrk/validate.sh depot 7202 -- dist/depot serve --no-workers
#
# The database is bench/validate.ts's (run it once to seed: 10,000 licenses of product 1, each with
# 127.0.0.1 registered); DATABASE_URL overrides it. Starts COMMAND with PORT, DATABASE_URL, a fresh
# DATA_DIR, LOG_LEVEL (default info), DATABASE_POOL_SIZE (default 10: the references' pool, and depot's
# when these numbers were measured) and the benchmarks' APP_KEY, waits for HEALTH (default
# /api/health), sets every address's last_seen_at to now (no measured request writes), runs wrk -t2
# -c64 for WARM seconds (default 3, discarded) and DUR seconds (default 15), and prints one line: the
# server process's CPU per request (utime+stime from /proc over the measured seconds), wrk's RESULT
# line, wrk's own CPU seconds and the load average. Then stops the server.
#
# SCRAPE=1 turns metrics on (METRICS_TOKEN) and scrapes /metrics once a second during the measured
# seconds, as bench/README.md "Metrics" compares it with the same server without: the line then ends
# with how many scrapes answered 200.
#
# RUNS=N measures N times back to back on the same server (a line each): RUNS=5 DUR=60 is the
# five-minute soak, its last minute compared with its first.
set -u
here=$(cd "$(dirname "$0")" && pwd)
name=$1; port=$2; shift 3
dir=$(mktemp -d)
. "$here/server.sh"
serve "$port" "$dir" "$dir/stderr" ${SCRAPE:+env METRICS_TOKEN=bench-metrics-token} "$@"
pid=$served
answering "$port" "${HEALTH:-}"
psql -q "$db" -c "UPDATE license_ips SET last_seen_at = now()" > /dev/null
wrk -t2 -c64 -d"${WARM:-3}s" -s "$here/validate.lua" "http://127.0.0.1:$port" > /dev/null
for run in $(seq 1 "${RUNS:-1}"); do
  scrapes=""
  if [ -n "${SCRAPE:-}" ]; then
    ( for _ in $(seq 1 "${DUR:-15}"); do
        curl -s -o /dev/null -w '%{http_code}\n' -H "Authorization: Bearer bench-metrics-token" "http://127.0.0.1:$port/metrics"
        sleep 1
      done > "$dir/scrapes" ) &
    scraper=$!
  fi
  start=$(awk '{print $14 + $15}' "/proc/$pid/stat")
  out=$( { /usr/bin/time -f "wrk_cpu_s=%U+%S" wrk -t2 -c64 -d"${DUR:-15}s" -s "$here/validate.lua" "http://127.0.0.1:$port"; } 2>&1 )
  end=$(awk '{print $14 + $15}' "/proc/$pid/stat")
  requests=$(echo "$out" | grep -o 'requests=[0-9]*' | cut -d= -f2)
  if [ -n "${SCRAPE:-}" ]; then wait "$scraper"; scrapes=" scrapes_200=$(grep -c '^200$' "$dir/scrapes")"; fi
  echo "$name${RUNS:+ run $run} server_cpu_us_per_req=$(( (end - start) * 1000000 / $(getconf CLK_TCK) / (${requests:-0} > 0 ? requests : 1) )) $(echo "$out" | grep RESULT) $(echo "$out" | grep wrk_cpu_s) load=$(cut -d' ' -f1 /proc/loadavg)$scrapes"
done
kill "$pid"; wait "$pid" 2>/dev/null
rm -rf "$dir"
