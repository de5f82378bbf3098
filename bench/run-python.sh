#!/usr/bin/env bash
# Runs the Python baselines (bench/asyncio_client.py, and bench/aiohttp_client.py
# where aiohttp is importable: Debian's python3-aiohttp) against the fake SSE
# server of llmload's own client benchmarks, so the figures compare with
#   go test -run '^$' -bench 'ClientIngest|ClientPaced' -benchtime 2000x -cpu 1 ./executor
# Loopback only. Called by `make bench-python`.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=bin/executor.test
[ -x "$bin" ] || { echo "build $bin first (make bench-python does)"; exit 2; }

out=$(mktemp -d)
trap 'exec 3>&- 4>&-; wait; rm -rf "$out"' EXIT
serve() { # $1 = JSON server spec, $2 = name, $3 = a free fd; sets url. The server
  # reads its stdin from a fifo this script holds open, and exits when the
  # script ends and closes it.
  mkfifo "$out/$2.in"
  LLMLOAD_EXECUTORTEST_SERVER="$1" "$bin" -test.run='^$' < "$out/$2.in" > "$out/$2" &
  eval "exec $3>\"\$out/\$2.in\""
  for _ in $(seq 50); do [ -s "$out/$2" ] && break; sleep 0.1; done
  url=$(head -1 "$out/$2")
}

clients=("python3 bench/asyncio_client.py")
for py in python3 /usr/bin/python3; do
  if "$py" -c 'import aiohttp' 2>/dev/null; then clients+=("$py bench/aiohttp_client.py"); break; fi
done
[ ${#clients[@]} -gt 1 ] || echo "note: aiohttp is not importable; apt-get install python3-aiohttp for vLLM's client loop"

serve '{"Tokens":256}' fast 3
echo "zero-delay server, 256-token streams: $url"
for c in "${clients[@]}"; do
  for s in 1 16 64 256; do echo -n "  ${c##*/} "; $c "$url" "$s" 1000 256; done
done
serve '{"Tokens":100,"ITL":10000000}' paced 4
echo "paced server, 100 tokens 10 ms apart: $url"
for c in "${clients[@]}"; do
  for s in 100 300; do echo -n "  ${c##*/} "; $c "$url" "$s" $((s * 4)) 100; done
done
