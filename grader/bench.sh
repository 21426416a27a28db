#!/usr/bin/env bash
# grader/bench.sh: the grader's wall-clock figures on this machine, printed,
# not asserted (make bench-grader). It warms the build cache first, then
# times each command several times and prints the fastest and the median:
#
#   make exNN             one chapter, told in full (the grader built and run)
#   after an edit         the same, after saving a change to the stub (in a copy)
#   make grade            every chapter (go run ./grader)
#   grader (installed)    every chapter, without go run's link check
#   grader --solutions    every chapter's solution
#   --no-cache            every suite run again, nothing from the results cache:
#                         each chapter alone, then all of them (the bar: all
#                         within 1.5 times the slowest one alone; the last
#                         line gives the ratio, from this run's figures)
#   go test (bare)        the chapter's solution under a plain go test -count=1,
#                         for the grader's own cost beside it (the bar: grader
#                         --no-cache --solutions exNN within 1.2x)
#   grader vet            the world's rules alone, on every chapter
#   --runs 1000           a chapter's solution over 1,000 seeds of its
#                         randomized checks, every suite run again, as seeds
#                         per wall-minute (the bar: 20,000 for the slowest,
#                         ex03 by default; BENCH_WIDE names another)
#
# Usage: grader/bench.sh [exNN] (default: the first chapter); BENCH_RUNS=5.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
runs=${BENCH_RUNS:-5}
ch=${1:-$("$GO" run ./grader list | awk 'NR==2 {print $1}')}
if [ -z "$ch" ]; then
	echo "bench-grader: no chapter is registered yet" >&2
	exit 1
fi
mkdir -p bin
"$GO" build -o bin/grader ./grader

# measure LABEL COMMAND...: runs COMMAND $runs times, prints min and median.
measure() {
	local label=$1
	shift
	local times=()
	for _ in $(seq "$runs"); do
		local start end
		start=$(date +%s%N)
		"$@" >/dev/null 2>&1 || true
		end=$(date +%s%N)
		times+=($(((end - start) / 1000000)))
	done
	local sorted
	sorted=$(printf '%s\n' "${times[@]}" | sort -n)
	local min median
	min=$(echo "$sorted" | sed -n 1p)
	median=$(echo "$sorted" | sed -n "$(((runs + 1) / 2))p")
	printf '  %-38s min %5d ms   median %5d ms\n' "$label" "$min" "$median"
	last_min=$min
}

# Warm the caches: the grader's build and every chapter's test build.
make -s "$ch" >/dev/null 2>&1 || true
"$GO" run ./grader >/dev/null 2>&1 || true
"$GO" run ./grader --solutions >/dev/null 2>&1 || true

# A copy of the workbook where each run first edits the chapter's stub, as a
# learner saving a file does: the package and its test binary rebuild.
copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
git ls-files -z | tar --null -cf - -T - | tar -xf - -C "$copy"
exdir=$(ls -d "$copy"/exercises/"$ch"-*/)
stub=$(ls "$exdir"*.go | grep -v _test.go | head -1)
edit_and_grade() {
	local n
	n=$(date +%s%N)
	echo "func BenchEdit$n() string { return \"$n\" }" >>"$stub"
	(cd "$copy" && "$OLDPWD"/bin/grader "$ch")
}
edit_and_grade >/dev/null 2>&1 || true

echo "grader timings, warm, $runs runs each · $(nproc 2>/dev/null || echo '?') CPUs · $("$GO" version | cut -d' ' -f3)"
measure "make $ch" make -s "$ch"
measure "grader $ch after an edit (rebuild)" edit_and_grade
measure "make grade (every chapter)" make -s grade
measure "bin/grader (every chapter)" bin/grader
measure "bin/grader --solutions" bin/grader --solutions
measure "bin/grader --no-cache (every chapter)" bin/grader --no-cache
measure "bin/grader --no-cache --solutions" bin/grader --no-cache --solutions
all_min=$last_min
soldir=$(ls -d solutions/"$ch"-*/)
measure "go test -count=1 ./$soldir (bare)" "$GO" test -count=1 "./$soldir"
measure "bin/grader --no-cache --solutions $ch" bin/grader --no-cache --solutions "$ch"
measure "bin/grader vet (every chapter)" bin/grader vet
slowest=0
slowest_ch=
for c in $(bin/grader list | awk 'NR>1 && /^ex[0-9]/ {print $1}'); do
	measure "bin/grader --no-cache --solutions $c" bin/grader --no-cache --solutions "$c"
	if [ "$last_min" -gt "$slowest" ]; then
		slowest=$last_min
		slowest_ch=$c
	fi
done
if [ "$slowest" -gt 0 ]; then
	printf '  every chapter / the slowest alone (%s): %d / %d ms = %d.%02d (the bar: 1.5)\n' "$slowest_ch" "$all_min" "$slowest" \
		$((all_min / slowest)) $((all_min * 100 / slowest % 100))
fi
wide=${BENCH_WIDE:-ex03}
measure "bin/grader --no-cache --solutions --runs 1000 $wide" bin/grader --no-cache --solutions --runs 1000 "$wide"
if [ "$last_min" -gt 0 ]; then
	printf '  %s at --runs 1000: %d seeds per wall-minute (the bar: 20,000)\n' "$wide" $((1000 * 60000 / last_min))
fi
