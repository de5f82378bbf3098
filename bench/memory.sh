#!/usr/bin/env bash
# The memory benchmark: REQUESTS (default 1,000,000) closed-loop requests of
# 256 output tokens against a zero-delay fake server in its own process;
# prints llmload's peak RSS and checks the requests file has a line per
# request and the outputs file the first 1,000 answers. Needs GNU time (/usr/bin/time, Debian package "time").
set -euo pipefail
cd "$(dirname "$0")/.."
requests=${REQUESTS:-1000000}
out=$(mktemp -d)
trap 'kill "$srv_pid" 2>/dev/null || true; rm -rf "$out"' EXIT
# Each answer as long as its max_tokens (256; the preflight probe asks 4,
# and a server that ignores the cap is cut as oversized).
bin/fakeserver -tokens 0 > "$out/url" &
srv_pid=$!
for _ in $(seq 50); do [ -s "$out/url" ] && break; sleep 0.1; done
url=$(head -1 "$out/url")
echo "fake server at $url; $requests requests of 256 tokens, 64 users"
start=$(date +%s)
/usr/bin/time -v bin/llmload run -quiet -out "$out/results" bench/memory.hcl \
  -var "base_url=$url" -var "requests=$requests" > "$out/report.txt" 2> "$out/time.txt" || {
  cat "$out/time.txt" >&2; exit 1; }
secs=$(( $(date +%s) - start ))
rss_kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$out/time.txt")
lines=$(wc -l < "$out/results/memory.requests.jsonl")
kept=$(wc -l < "$out/results/memory.outputs.jsonl")
echo "outputs file: $kept answers kept ($(du -h "$out/results/memory.outputs.jsonl" | cut -f1))"
echo "requests file: $lines lines ($(du -h "$out/results/memory.requests.jsonl" | cut -f1))"
grep -E 'Successful requests|Failed requests|Output token throughput' "$out/report.txt"
echo "wall time: ${secs}s; peak RSS: $((rss_kb / 1024)) MiB (bound: 200 MiB)"
[ "$lines" -eq "$requests" ] || { echo "FAIL: $lines lines for $requests requests" >&2; exit 1; }
want_kept=$(( requests < 1000 ? requests : 1000 ))
[ "$kept" -eq "$want_kept" ] || { echo "FAIL: $kept answers kept, want $want_kept" >&2; exit 1; }
[ "$rss_kb" -le $((200 * 1024)) ] || { echo "FAIL: peak RSS over 200 MiB" >&2; exit 1; }
