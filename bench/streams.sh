#!/usr/bin/env bash
# The stream-scale benchmark (make bench-streams): llmload against the fake
# server in its own process (so that the client's CPU and memory are its
# own), which records when it received each request and flushed each token;
# tools/streamcheck compares both sides.
#
#   STREAMS=1000   max_concurrency 1000, rate inf, 4,000 requests, TTFT 200 ms,
#                  ITL 20 ms, 50 tokens; RUNS (default 3) runs, then RUNS more
#                  with prewarm_connections = 1000
#   STREAMS=10000  10,000 streams of 24 tokens, TTFT 500 ms, ITL 200 ms: arrivals
#                  ramped at 2,000/s, then all at once (rate inf), then all at
#                  once after prewarm_connections = 10000
#
# ONLY=TEXT runs only the runs whose label holds it (10000-ramped, say).
# PROFILE=DIR writes each run's CPU and allocation profiles there
# (go tool pprof bin/llmload DIR/<run>.cpu). Needs GNU time (/usr/bin/time).
set -euo pipefail
cd "$(dirname "$0")/.."
streams=${STREAMS:-1000}
llmload=${LLMLOAD:-bin/llmload}   # another build to compare with
hcl=${HCL:-bench/streams.hcl}
runs=${RUNS:-3}
out=$(mktemp -d)
srv_pid=
trap '[ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null; rm -rf "$out"' EXIT

# one LABEL SCENARIO TTFT ITL TOKENS -var...: one run, then its comparison.
one() {
  local label=$1 scenario=$2 ttft=$3 itl=$4 tokens=$5; shift 5
  case "$label" in *"${ONLY:-}"*) ;; *) return 0 ;; esac
  rm -f "$out/url" "$out/server.jsonl"
  bin/fakeserver -tokens "$tokens" -ttft "$ttft" -itl "$itl" -record "$out/server.jsonl" > "$out/url" &
  srv_pid=$!
  for _ in $(seq 50); do [ -s "$out/url" ] && break; sleep 0.1; done
  local url; url=$(head -1 "$out/url")
  local env=()
  if [ -n "${PROFILE:-}" ]; then
    mkdir -p "$PROFILE"
    env=(LLMLOAD_CPUPROFILE="$PROFILE/$label.cpu" LLMLOAD_MEMPROFILE="$PROFILE/$label.alloc" LLMLOAD_GCSTATS=1)
  fi
  local code=0
  env "${env[@]}" /usr/bin/time -v "$llmload" run -quiet -out "$out/results" -scenario "$scenario" "$hcl" \
    -var "base_url=$url" -var "tokens=$tokens" "$@" > "$out/report.txt" 2> "$out/time.txt" || code=$?
  kill -TERM "$srv_pid"; wait "$srv_pid" 2>/dev/null || true; srv_pid=
  if [ "$code" -ne 0 ] && [ "$code" -ne 1 ] && [ "$code" -ne 3 ]; then
    cat "$out/report.txt" "$out/time.txt" >&2; echo "llmload exited $code" >&2; exit 1
  fi
  local user sys rss
  user=$(awk -F': ' '/User time/ {print $2}' "$out/time.txt")
  sys=$(awk -F': ' '/System time/ {print $2}' "$out/time.txt")
  rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$out/time.txt")
  grep -E '^(gc:|memory peaks:|llmload: (raised|warning))' "$out/time.txt" || true
  grep -E '^(Connections|WARNING|Schedule)' "$out/report.txt" || true
  go run ./tools/streamcheck -label "$label" -requests "$out/results/$scenario.requests.jsonl" -server "$out/server.jsonl" \
    -cpu "$(echo "$user + $sys" | bc)" -rss "$rss" -streams "${PEAK:-0}"
  echo
}

echo "$(date -u +%Y-%m-%dT%H:%MZ), load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
case "$streams" in
1000)
  for i in $(seq "$runs"); do
    PEAK=1000 one "1000-streams-run$i" capped 200ms 20ms 50 -var requests=4000 -var max_concurrency=1000
  done
  for i in $(seq "$runs"); do
    PEAK=1000 one "1000-streams-prewarmed-run$i" capped 200ms 20ms 50 -var requests=4000 -var max_concurrency=1000 -var prewarm=1000
  done
  ;;
10000)
  PEAK=10000 one "10000-ramped" open 500ms 200ms 24 -var requests=10000 -var rate=2000
  PEAK=10000 one "10000-inf" open 500ms 200ms 24 -var requests=10000
  PEAK=10000 one "10000-inf-prewarmed" open 500ms 200ms 24 -var requests=10000 -var prewarm=10000
  ;;
*)
  PEAK=$streams one "$streams-streams" capped 200ms 20ms 50 -var requests=$((streams * 4)) -var max_concurrency="$streams"
  ;;
esac
