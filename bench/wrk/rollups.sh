#!/bin/bash
# Validate with usage rollups on and off, in one run (bench/README.md "Usage rollups").
#
#   bench/wrk/rollups.sh [BINARY]          BINARY defaults to dist/depot
#
# Starts the same binary twice on the validate benchmark's database (bench/validate.ts seeds it;
# DATABASE_URL overrides it): one counting usage (STATS_RETENTION_DAYS=400, the default), one not
# (STATS_RETENTION_DAYS=0). Each round then loads both at once, each with its own `wrk -t1 -c32` for
# DUR seconds (default 8), so the two see the same noise of this shared machine and only the
# counting differs. The servers run through the rounds, so the counting server's upserts (one every
# few seconds) fall into the rounds as they would in production; every RESTART_EVERY rounds (default
# 20) both restart with their ports swapped, so that no one start's luck (which core, which memory)
# weighs on the whole run. Prints a line per round and, at the end, on ÷ off as the mean of the rounds
# with its standard error: req/s, and CPU a request, of depot's process alone and with the PostgreSQL
# backends of its connections (found by their ports in pg_stat_activity), where the upserts' work is.
# Under load on 2 cores one round's req/s varies by ±15 % between two servers that share them; the
# CPU a request varies far less, and it is what the req/s of a CPU-bound machine follows.
# ROUNDS (default 40), WARM (default 5: seconds of load before the first round, discarded). ON_DAYS=0
# runs the "on" server without counting too: what the benchmark itself tells two equal servers apart by.
# Needs wrk, psql, ss and bc (Debian: wrk, postgresql-client, iproute2, bc).
set -u
here=$(cd "$(dirname "$0")" && pwd)
binary=${1:-$here/../../dist/depot}
rounds=${ROUNDS:-40}
every=${RESTART_EVERY:-20}
dir=$(mktemp -d)
. "$here/server.sh"

# start NAME PORT RETENTION_DAYS: a server in the background, its pid in $dir/NAME.pid once it answers.
start() {
  serve "$2" "$dir/$1" "$dir/$1.stderr" env SERVE_PROCESSES=1 STATS_RETENTION_DAYS="$3" "$binary" serve --no-workers
  echo "$served" > "$dir/$1.pid"
  answering "$2" || { echo "$1 did not start: $(cat "$dir/$1.stderr")" >&2; exit 1; }
}
stop() { for name in on off; do kill "$(cat "$dir/$name.pid")"; wait "$(cat "$dir/$name.pid")" 2>/dev/null; done; }
load() { wrk -t1 -c32 -d"$2s" -s "$here/validate.lua" "http://127.0.0.1:$1"; }
# The PostgreSQL backends serving server NAME: its connections' ports, looked up in pg_stat_activity.
backends() {
  ports=$(ss -tnpH "( dport = :5432 )" | grep "pid=$(cat "$dir/$1.pid")," | awk '{print $4}' | sed 's/.*://' | paste -sd,)
  psql -Atq "$db" -c "SELECT pid FROM pg_stat_activity WHERE client_port IN (${ports:-0})" > "$dir/$1.backends"
}
# CPU ticks so far of server NAME, and of it with its backends (a backend gone meanwhile counts 0).
cpu() {
  server=$(awk '{print $14 + $15}' "/proc/$(cat "$dir/$1.pid")/stat")
  echo "$server $(( server + $(cat $(sed 's|.*|/proc/&/stat|' "$dir/$1.backends") 2>/dev/null | awk '{s += $14 + $15} END {print s + 0}') ))"
}

for round in $(seq 1 "$rounds"); do
  if [ $(( (round - 1) % every )) -eq 0 ]; then
    [ "$round" -eq 1 ] || stop
    if [ $(( (round - 1) / every % 2 )) -eq 0 ]; then on_port=7211; off_port=7212; else on_port=7212; off_port=7211; fi
    start on "$on_port" "${ON_DAYS:-400}"; start off "$off_port" 0
    psql -q "$db" -c "UPDATE license_ips SET last_seen_at = now()" > /dev/null
    load "$on_port" "${WARM:-5}" > /dev/null & other=$!; load "$off_port" "${WARM:-5}" > /dev/null; wait "$other"
  fi
  backends on; backends off
  read -r on_cpu on_all <<< "$(cpu on)"; read -r off_cpu off_all <<< "$(cpu off)"
  load "$on_port" "${DUR:-8}" > "$dir/on.out" & other=$!; load "$off_port" "${DUR:-8}" > "$dir/off.out"; wait "$other"
  read -r on_cpu_end on_all_end <<< "$(cpu on)"; read -r off_cpu_end off_all_end <<< "$(cpu off)"
  on_cpu=$(( on_cpu_end - on_cpu )); off_cpu=$(( off_cpu_end - off_cpu ))
  on_all=$(( on_all_end - on_all )); off_all=$(( off_all_end - off_all ))
  on_req=$(grep -o 'requests=[0-9]*' "$dir/on.out" | cut -d= -f2)
  off_req=$(grep -o 'requests=[0-9]*' "$dir/off.out" | cut -d= -f2)
  echo "round $round on_port=$on_port on_requests=$on_req off_requests=$off_req on_cpu_ticks=$on_cpu off_cpu_ticks=$off_cpu on_all_ticks=$on_all off_all_ticks=$off_all backends=$(wc -l < "$dir/on.backends")/$(wc -l < "$dir/off.backends") ratio=$(echo "scale=4; $on_req / $off_req" | bc) load=$(cut -d' ' -f1 /proc/loadavg)"
done | tee "$dir/rounds"
stop

awk -v hz="$(getconf CLK_TCK)" '
  # add(NAME, value) keeps the ratio of one round; show(LABEL, NAME) prints their mean and standard error.
  function add(name, value) { n[name]++; sum[name] += value; sq[name] += value * value }
  function show(label, name,  mean) {
    mean = sum[name] / n[name]
    printf "%s: %.4f ± %.4f\n", label, mean, sqrt((sq[name] - n[name] * mean * mean) / (n[name] - 1) / n[name])
  }
  { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
    add("rps", v["on_requests"] / v["off_requests"])
    add("cpu", (v["on_cpu_ticks"] / v["on_requests"]) / (v["off_cpu_ticks"] / v["off_requests"]))
    add("all", (v["on_all_ticks"] / v["on_requests"]) / (v["off_all_ticks"] / v["off_requests"]))
    on += v["on_requests"]; off += v["off_requests"]
    on_cpu += v["on_cpu_ticks"]; off_cpu += v["off_cpu_ticks"]; on_all += v["on_all_ticks"]; off_all += v["off_all_ticks"] }
  END {
    printf "%d rounds, rollups on ÷ off (the mean of the rounds ± its standard error):\n", n["rps"]
    show("  req/s", "rps")
    show("  CPU a request, depot", "cpu")
    show("  CPU a request, depot and its PostgreSQL backends", "all")
    printf "all the rounds together: req/s on ÷ off %.4f; CPU a request, on / off: depot %.1f / %.1f µs, with its backends %.1f / %.1f µs\n",
      on / off, on_cpu / hz * 1e6 / on, off_cpu / hz * 1e6 / off, on_all / hz * 1e6 / on, off_all / hz * 1e6 / off
  }' "$dir/rounds"
rm -rf "$dir"
