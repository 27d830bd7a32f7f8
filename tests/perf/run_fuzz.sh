#!/bin/sh
# perf.data fuzzing: seeds written by hwt export (file mode, pipe mode,
# compressed, one CPU, and hardware's packets with kernel-mode trace) and one
# perf itself wrote, each truncated at every byte and corrupted at random
# (perf_fuzz), through the reader and the import.
# usage: run_fuzz.sh HWT DRIVER HW_PACKETS PERF_FUZZ WORKDIR PROGRAM ITERATIONS
set -u
hwt=$1 driver=$2 hw=$3 fuzz=$4 work=$5 program=$6 iterations=$7
rm -rf "$work"
mkdir -p "$work/run"
"$hwt" record -q --unit valgrind -o "$work/b" -- "$program" >/dev/null 2>&1 || { echo "FAIL: record"; exit 1; }
"$driver" export "$work/b" "$work/file.data" 2>/dev/null &&
	"$driver" export "$work/b" - pipe >"$work/pipe.data" 2>/dev/null &&
	"$driver" export "$work/b" "$work/compress.data" compress 2>/dev/null &&
	"$driver" export "$work/b" "$work/cpu.data" one-cpu 2>/dev/null &&
	cp -r "$work/b" "$work/hw" && "$hw" "$work/b" "$work/hw" kernel >/dev/null &&
	"$driver" export "$work/hw" "$work/hw.data" 2>/dev/null || { echo "FAIL: seeds"; exit 1; }
seeds="file pipe compress cpu hw"
if command -v perf >/dev/null && perf record -q -e dummy -o "$work/perf.data" -- "$program" >/dev/null 2>&1; then
	seeds="$seeds perf"
fi
failed=0
seed=1
for s in $seeds; do
	"$fuzz" "$work/$s.data" "$work/run" $seed "$iterations" || failed=1
	seed=$((seed + 1))
done
[ "$failed" = 0 ]
