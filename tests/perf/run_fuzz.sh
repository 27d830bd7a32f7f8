#!/bin/sh
# perf.data fuzzing: seeds written by hwt export (file mode, pipe mode,
# compressed, one CPU, and hardware's packets with kernel-mode trace), one
# perf itself wrote, cs_etm and arm_spe exports of an aarch64 program, each truncated at every byte and corrupted at random
# (perf_fuzz), through the reader and the import.
# usage: run_fuzz.sh HWT HW_PACKETS PERF_FUZZ WORKDIR PROGRAM ITERATIONS
set -u
hwt=$1 hw=$2 fuzz=$3 work=$4 program=$5 iterations=$6
. "$(dirname "$0")/../work_dir.sh"
hwt_test_work_dir "$work"
mkdir -p "$work/run"
"$hwt" record -q --unit valgrind -o "$work/b" -- "$program" >/dev/null 2>&1 || { echo "FAIL: record"; exit 1; }
"$hwt" export -q -o "$work/file.data" "$work/b" &&
	"$hwt" export -o - "$work/b" >"$work/pipe.data" &&
	"$hwt" export -q -z -o "$work/compress.data" "$work/b" &&
	"$hwt" export -q --one-cpu -o "$work/cpu.data" "$work/b" &&
	cp -r "$work/b" "$work/hw" && "$hw" "$work/b" "$work/hw" kernel >/dev/null &&
	{ "$hwt" export -q -o "$work/hw.data" "$work/hw" 2>/dev/null; [ $? -le 1 ]; } ||
	{ echo "FAIL: seeds"; exit 1; }
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
# CoreSight ETM: an aarch64 program's cs_etm export, raw and formatted.
etm_program=${ETM_PROGRAM:-}
if [ -n "$etm_program" ] && [ -e "$etm_program" ]; then
	"$hwt" record -q --unit qemu -o "$work/etm" -- "$etm_program" >/dev/null 2>&1 &&
		"$hwt" export -q -o "$work/etm.data" "$work/etm" &&
		"${PERFDATA_TOOL:?}" copy "$work/etm.data" "$work/etmf.data" etm-formatted ||
		{ echo "FAIL: cs_etm seeds"; exit 1; }
	for s in etm etmf; do
		"$fuzz" "$work/$s.data" "$work/run" $seed "$iterations" || failed=1
		seed=$((seed + 1))
	done
	# Arm SPE: the same program's SPE records as an arm_spe export (one in about
	# 1000 operations: a file of some 25 KB, whose every truncation is read).
	"$hwt" record -q --unit qemu --spe=997 -o "$work/spe" -- "$etm_program" >/dev/null 2>&1 &&
		"$hwt" export -q --spe -o "$work/spe.data" "$work/spe" ||
		{ echo "FAIL: arm_spe seed"; exit 1; }
	"$fuzz" "$work/spe.data" "$work/run" $seed "$iterations" || failed=1
	seed=$((seed + 1))
else
	echo "note: no aarch64 program: no cs_etm or arm_spe seeds"
fi
[ "$failed" = 0 ]
