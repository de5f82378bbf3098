#!/usr/bin/env bash
# screenshots.sh: the report pictures in docs/img (docs/report.md), from
# real runs of the examples on the built-in simulator: the saturation run,
# the sweep, the capacity search, and a baseline and a candidate overlaid
# (the quickstart, and the quickstart with every decode step 1 ms slower).
# Takes about 9 minutes; needs Chromium (apt-get install chromium).
#
#   bash tools/screenshots.sh
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/llmload" ./cmd/llmload
go build -o "$work/figshot" ./tools/figshot

# A run whose sla fails exits 1 and has still written its report.
run() {
	local name=$1
	shift
	"$work/llmload" run "$@" -out "$work/$name" -html "$work/$name.html" >"$work/$name.log" 2>&1 || [ $? -eq 1 ] || {
		cat "$work/$name.log" >&2
		return 1
	}
}
run saturation examples/saturation.hcl
run sweep examples/sweep.hcl
run capacity examples/capacity.hcl
run baseline examples/quickstart.hcl
sed 's/^  ignore_eos = true$/  ignore_eos = true\n  sim {\n    step_overhead = "1.5ms"\n  }/' examples/quickstart.hcl >"$work/candidate.hcl"
grep -q step_overhead "$work/candidate.hcl"
run candidate "$work/candidate.hcl"
"$work/llmload" report "$work/baseline/quickstart.json" "$work/candidate/quickstart.json" -html "$work/overlay.html" >/dev/null

shot() { "$work/figshot" -html "$work/$1.html" -figure "$2" -o "docs/img/$3.png"; }
shot saturation "Output throughput vs load" saturation-throughput
shot saturation "P90 TTFT vs load" saturation-ttft
shot saturation "Output throughput over time" saturation-time
shot sweep "P99 ITL vs load" sweep-itl
shot sweep "TTFT P50 (dashed) and P90 over time" sweep-time
shot capacity "P90 TTFT vs load" capacity-ttft
shot overlay "ITL distribution" overlay-itl
shot overlay "ITL P50 (dashed) and P99 over time" overlay-itl-time
ls -l docs/img
