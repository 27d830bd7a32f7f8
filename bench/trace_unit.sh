#!/usr/bin/env bash
# Benchmark of the software trace units: hwt record with the Valgrind tool,
# slowdown against native and against `valgrind --tool=none` on the same
# run, and trace bytes per million instructions; hwt record with the QEMU
# unit (docs/qemu-unit.md), slowdown against native.
#
# usage: bench/trace_unit.sh [BUILD_DIR]     (default: build)
# Prints a table; medians of $RUNS runs (default 3). Not a test: no pass/fail.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
runs=${RUNS:-3}
hwt=$build/bin/hwt
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

[ -x "$hwt" ] || { echo "no $hwt: build first (scripts/build.sh)" >&2; exit 2; }

# Median wall time in seconds of running "$@" $runs times.
median() {
	local times=()
	for _ in $(seq "$runs"); do
		local start end
		start=$(date +%s.%N)
		"$@" >/dev/null 2>&1 || true
		end=$(date +%s.%N)
		times+=("$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')")
	done
	printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p"
}

# Instructions of a run, from callgrind (counts, not time: exact and repeatable).
instructions() {
	valgrind --tool=callgrind --trace-children=yes --callgrind-out-file="$work/cg.%p" "$@" \
		>/dev/null 2>&1 || true
	cat "$work"/cg.* | awk '/^summary:/ { s += $2 } END { print s }'
	rm -f "$work"/cg.*
}

# --trace-all: the same processes as `valgrind --trace-children=yes` (the
# default selection would leave the shells untraced; bench/select/ measures that).
record() {
	rm -rf "$work/b"
	"$hwt" record -q --unit valgrind --trace-all -o "$work/b" -- "$@"
}

record_qemu() {
	rm -rf "$work/q"
	"$hwt" record -q --unit qemu --trace-all -o "$work/q" -- "$@"
}

row() {
	local name=$1
	shift
	local native none traced qemu bytes insns
	native=$(median "$@")
	none=$(median valgrind --tool=none -q --trace-children=yes "$@")
	traced=$(median record "$@")
	qemu=$(median record_qemu "$@")
	record "$@" >/dev/null 2>&1 || true
	bytes=$(du -cb "$work"/b/streams/*.pt | tail -n 1 | cut -f1)
	insns=$(instructions "$@")
	awk -v n="$name" -v nat="$native" -v none="$none" -v hwt="$traced" -v b="$bytes" -v i="$insns" \
		-v q="$qemu" \
		'BEGIN { printf "%-28s %8.3f %8.3f %8.3f %7.2fx %7.2fx %10.0f %8.3f %7.2fx\n", n, nat, none,
			 hwt, hwt / nat, hwt / none, b * 1000000 / i, q, q / nat }'
}

printf '%-28s %8s %8s %8s %8s %8s %10s %8s %8s\n' workload native[s] none[s] hwt[s] \
	vs-nat vs-none B/Minsn qemu[s] vs-nat
row "cpu_interp train (CPU)" "$build/tests/programs/cpu_interp" train
row "cpu_interp measure (CPU)" "$build/tests/programs/cpu_interp" measure
row "mini_suite (6 processes)" sh tests/programs/mini_suite/run-tests.sh \
	"$build/tests/programs/mini_suite"
row "examples/calc suite" sh examples/calc/run-tests.sh "$build/examples/calc"
