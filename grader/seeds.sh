#!/usr/bin/env bash
# grader/seeds.sh: the seed figures of DESIGN's quality bars, printed, not
# asserted (make seeds). For each chapter it measures, one world at a time:
#
#   stub fails       on how many of N seeds the stub in exercises/ fails, and
#                    with the chapter's named failure (the bar: at least 99%);
#                    run it on a fresh clone, where exercises/ holds the stubs
#   solution passes  on how many of N seeds the solution passes (the bar: all)
#   breadth          the wall time of the solution's suite with RUNS=BREADTH
#                    (the bar: 10,000 seeds in under a minute)
#
# Each seed runs as its own replay (SEED=s), exactly as a learner's
# `make exNN SEED=s` would, so a seed that passes only inside a larger run
# is not counted as a pass.
#
# Usage: grader/seeds.sh [exNN ...]; N=1000 seeds, BREADTH=10000 (0 skips).
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
n=${N:-1000}
breadth=${BREADTH:-10000}
chapters=("$@")
if [ ${#chapters[@]} -eq 0 ]; then
	mapfile -t chapters < <("$GO" run ./grader list | awk '$1 ~ /^ex[0-9]+$/ {print $1}')
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

printf '%-6s %-26s %-22s %s\n' chapter "stub fails (named)" "solution passes" "breadth"
for ch in "${chapters[@]}"; do
	ex=$(ls -d exercises/"$ch"-*/ | head -1)
	sol=$(ls -d solutions/"$ch"-*/ | head -1)
	test=Test$(echo "${ch:0:1}" | tr a-z A-Z)${ch:1}
	failure=$(sed -n 's/.*Failure: *"\([^"]*\)".*/\1/p' "internal/harness/course/$ch.go" | head -1)
	"$GO" test -c -o "$work/stub.test" "./$ex" >/dev/null
	"$GO" test -c -o "$work/sol.test" "./$sol" >/dev/null
	stubFails=0 named=0 solPasses=0
	for s in $(seq "$n"); do
		if ! out=$(cd "$ex" && SEED=$s "$work/stub.test" -test.run "^$test\$" 2>&1); then
			stubFails=$((stubFails + 1))
			if [ -z "$failure" ] || grep -q "##onehistory-failure .*\"name\":\"$failure\"" <<<"$out"; then
				named=$((named + 1))
			fi
		fi
		if (cd "$sol" && SEED=$s "$work/sol.test" -test.run "^$test\$" >/dev/null 2>&1); then
			solPasses=$((solPasses + 1))
		fi
	done
	wide=skipped
	if [ "$breadth" -gt 0 ]; then
		start=$(date +%s%N)
		(cd "$sol" && RUNS=$breadth "$work/sol.test" -test.run "^$test\$" >/dev/null 2>&1) && ok=pass || ok=FAIL
		end=$(date +%s%N)
		wide=$(printf '%s seeds %.1f s %s' "$breadth" "$(((end - start) / 1000000))e-3" "$ok")
	fi
	printf '%-6s %-26s %-22s %s\n' "$ch" "$stubFails/$n ($named named)" "$solPasses/$n" "$wide"
done
