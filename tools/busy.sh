#!/usr/bin/env bash
# busy.sh CMD...: runs CMD while a busy loop at normal priority (not niced)
# occupies every core, as one compiler or one other test process beside a
# test run does; prints CMD's wall time and exits with its status. The
# loops end with the script, however it ends.
set -uo pipefail
n=${BUSY_CORES:-$(nproc)}
pids=()
cleanup() { [ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" 2>/dev/null; }
trap cleanup EXIT INT TERM
for _ in $(seq "$n"); do
  bash -c 'while :; do :; done' &
  pids+=($!)
done
echo "busy.sh: $n busy loops at normal priority; running: $*"
start=$(date +%s)
"$@"
status=$?
echo "busy.sh: wall time $(( $(date +%s) - start ))s, exit $status"
exit $status
