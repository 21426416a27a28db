#!/usr/bin/env bash
# grader/widths.sh: how wide each chapter's report is at a terminal of a given
# width, on the stubs as shipped (make exNN on a fresh checkout). For each
# chapter it prints the widest line of the whole report and the widest line
# of its timelines (the lines drawn with │ or ┼), in characters, and marks a
# chapter whose report is wider than the terminal.
#
# Usage: grader/widths.sh [COLUMNS] [exNN ...] (default: 80, every chapter).
# The grader is run as make runs it (bin/grader exNN), without a terminal,
# so COLUMNS is the width it fits; a chapter graded before at that width is
# served from the results cache.
set -uo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
cols=${1:-80}
shift || true
mkdir -p bin
"$GO" build -o bin/grader ./grader || exit 1
chapters=("$@")
if [ ${#chapters[@]} -eq 0 ]; then
	mapfile -t chapters < <(bin/grader list | awk '$1 ~ /^ex[0-9]+$/ {print $1}')
fi
export LC_ALL=C.UTF-8
printf '%-6s %8s %10s  (at COLUMNS=%d)\n' chapter report timeline "$cols"
over=0
for ch in "${chapters[@]}"; do
	out=$(COLUMNS=$cols NO_COLOR=1 bin/grader "$ch" 2>&1 | sed 's/\x1b\[[0-9;]*m//g')
	report=$(printf '%s\n' "$out" | wc -L)
	timeline=$(printf '%s\n' "$out" | grep -E '│|┼' | wc -L)
	mark=""
	if [ "$report" -gt "$cols" ]; then
		mark="  wider than the terminal"
		over=$((over + 1))
	fi
	printf '%-6s %8d %10d%s\n' "$ch" "$report" "$timeline" "$mark"
done
[ "$over" -eq 0 ]
