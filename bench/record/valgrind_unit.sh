#!/usr/bin/env bash
# The Valgrind unit's record time against its floor, `valgrind --tool=none`,
# on CPU-bound code: the bundled interpreter's training run and
# bench/unit_floor/tokenize.c. CPU time (user+sys) of the whole run, best of
# $RUNS (default 3), the floor and the unit in alternation (the machine may
# be shared: compare the two columns, not figures taken at other times).
#
# usage: bench/record/valgrind_unit.sh [BUILD_DIR]     (default: build)
# Set HWT_VALGRIND_LIB to time another build of the tool. Not a test.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
runs=${RUNS:-3}
hwt=$build/bin/hwt
work=$(mktemp -d /tmp/valgrind_unit.XXXXXX)
trap 'rm -rf "$work"' EXIT
[ -x "$hwt" ] || { echo "no $hwt: build first" >&2; exit 2; }
gcc -O2 -g -o "$work/tokenize" bench/unit_floor/tokenize.c

# CPU seconds (user+sys) of "$@".
cpu() {
	/usr/bin/time -f '%U %S' -o "$work/t" "$@" >/dev/null 2>&1 || true
	awk '{ printf "%.2f", $1 + $2 }' "$work/t"
}

row() {
	local name=$1 best_none=999 best_hwt=999 t
	shift
	for _ in $(seq "$runs"); do
		t=$(cpu valgrind --tool=none -q "$@")
		best_none=$(awk -v a="$t" -v b="$best_none" 'BEGIN { print (a < b ? a : b) }')
		rm -rf "$work/b"
		t=$(cpu "$hwt" record -q --unit valgrind --trace-all -o "$work/b" -- "$@")
		best_hwt=$(awk -v a="$t" -v b="$best_hwt" 'BEGIN { print (a < b ? a : b) }')
	done
	local bytes
	bytes=$(du -cb "$work"/b/streams/*.pt | tail -n 1 | cut -f1)
	awk -v n="$name" -v none="$best_none" -v hwt="$best_hwt" -v b="$bytes" \
		'BEGIN { printf "%-26s %8.2f %8.2f %7.2fx %8.0f\n", n, none, hwt, hwt / none, b / 1e6 }'
}

printf '%-26s %8s %8s %8s %8s\n' workload none[s] hwt[s] vs-none trace[MB]
row "cpu_interp train" "$build/tests/programs/cpu_interp" train
row "tokenize 2000" "$work/tokenize" 2000
