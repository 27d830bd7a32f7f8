#!/bin/sh
# Per-CPU perf.data: records a program with a software trace unit, exports
# the bundle twice, per thread and as if all its threads had shared one CPU
# (one AUX buffer, SWITCH_CPU_WIDE records, the trace's timestamps), imports
# both and checks that the per-CPU import gives the per-thread import's
# profile and the bundle's; and that Linux perf, decoding the per-CPU file by
# its switch records, gives every thread the branches libipt decodes.
# usage: run_percpu.sh HWT CHECK WORKDIR UNIT PROGRAM ARGS...
set -u
hwt=$1 check=$2 work=$3 unit=$4
shift 4
. "$(dirname "$0")/../work_dir.sh"
hwt_test_work_dir "$work" "$work.*"
mkdir -p "$(dirname "$work")"
"$hwt" record -q --unit "$unit" -o "$work" -- "$@" >"$work.out" 2>"$work.err" ||
	{ echo "FAIL: record"; cat "$work.err"; exit 1; }
"$hwt" export -q -o "$work.thread.data" "$work" || { echo "FAIL: export"; exit 1; }
"$hwt" export -q --one-cpu -o "$work.cpu.data" "$work" || { echo "FAIL: export"; exit 1; }
"$hwt" import -o "$work.thread" "$work.thread.data" || { echo "FAIL: import"; exit 1; }
"$hwt" import -o "$work.cpu" "$work.cpu.data" 2>"$work.cpu.err" || { cat "$work.cpu.err"; exit 1; }
cat "$work.cpu.err"
failed=0
grep -q "per CPU" "$work.cpu.err" || { echo "FAIL: the one-CPU file did not import per CPU"; failed=1; }
for b in "$work" "$work.thread" "$work.cpu"; do
	"$hwt" report profile -o "$b.prof" "$b" 2>"$b.prof.err" >/dev/null
done
threads=$(ls "$work/streams" | wc -l)
if cmp -s "$work.thread.prof" "$work.cpu.prof" && cmp -s "$work.prof" "$work.cpu.prof"; then
	echo "ok   $threads threads on one CPU: the per-CPU import's profile equals the per-thread one's and the bundle's"
else
	echo "FAIL: the per-CPU import's profile differs"
	diff "$work.thread.prof" "$work.cpu.prof" | head -5
	failed=1
fi
if [ -s "$work.cpu.prof.err" ]; then
	echo "FAIL: the per-CPU import has decode warnings"
	cat "$work.cpu.prof.err"
	failed=1
fi
if command -v perf >/dev/null; then
	switches=$(perf report -D -i "$work.cpu.data" 2>/dev/null | grep -c "PERF_RECORD_SWITCH_CPU_WIDE")
	echo "the per-CPU file has $switches SWITCH_CPU_WIDE records"
	[ "$switches" -gt 2 ] || { echo "FAIL: too few switches to test anything"; failed=1; }
	python3 "$(dirname "$0")/branches_vs_perf.py" "$check" "$work" "$work.cpu.data" || failed=1
else
	echo "perf is not installed: its per-CPU decoding is not checked"
fi
[ "$failed" = 0 ]
