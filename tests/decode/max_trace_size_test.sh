#!/bin/sh
# --max-trace-size (issue 34): under each software unit (valgrind, qemu)
#  - a run cut in the middle of a stream (deep_recursion writes about
#    330 KiB, the cap is 100 KiB): the command runs to its end (exit 0,
#    its output whole), the stop is said once, the header records the cap
#    and that it was reached, the kept trace is between the cap and the
#    cap plus a buffer, and it decodes without a warning (exit 0: every
#    decoder of HWT_DECODER, check in CTest) while saying the stop;
#  - a process started after the cap (sh runs loops twice, cap 1 byte):
#    the second runs natively (its UNTRACED record says why), still
#    followed; only the first is traced;
#  - a bad size is a usage error (2), nothing run.
#
# usage: max_trace_size_test.sh BUILD_DIR WORK_DIR
set -u
build=$1
work=$2
hwt=$build/bin/hwt
programs=$build/tests/programs
cap=102400

fail() {
	echo "FAIL: $*"
	exit 1
}

. "$(dirname "$0")/../work_dir.sh"
hwt_test_work_dir "$work"
mkdir -p "$work" || exit 1
cd "$work" || exit 1

key() { sed -n "s/^$2=//p" "$1"; }

units=
command -v valgrind >/dev/null && units="$units valgrind"
command -v qemu-x86_64 >/dev/null && [ -f "$build/lib/hwt/qemu/libhwt-qemu.so" ] &&
	units="$units qemu"
[ -n "$units" ] || { echo "SKIP: neither valgrind nor qemu-x86_64"; exit 77; }

for unit in $units; do
	# A stream cut where the cap was reached.
	"$programs/deep_recursion" >native.out 2>&1 || fail "deep_recursion natively"
	"$hwt" record --unit $unit --trace-all --max-trace-size 100K -o cut.$unit.hwt -- \
		"$programs/deep_recursion" >cut.$unit.out 2>cut.$unit.err ||
		fail "$unit: hwt record: $(cat cut.$unit.err)"
	cmp -s native.out cut.$unit.out || fail "$unit: the command's output changed under the cap"
	[ "$(grep -c '^hwt record: the trace reached --max-trace-size (102400 bytes): tracing stops' \
		cut.$unit.err)" = 1 ] ||
		fail "$unit: the stop is not said once: $(cat cut.$unit.err)"
	[ "$(key cut.$unit.hwt/hwt-bundle max_trace_size)" = $cap ] ||
		fail "$unit: no max_trace_size=$cap in the header"
	[ "$(key cut.$unit.hwt/hwt-bundle max_trace_size_reached)" = 1 ] ||
		fail "$unit: no max_trace_size_reached=1 in the header"
	[ ! -e cut.$unit.hwt/select/trace-budget ] || fail "$unit: the budget stays in the bundle"
	bytes=$(key cut.$unit.hwt/summary trace_bytes)
	# At most one buffer (64 KiB) past the cap; deep_recursion alone writes 330 KiB.
	[ "$bytes" -ge $cap ] && [ "$bytes" -le $((cap + 65536)) ] ||
		fail "$unit: $bytes bytes of trace kept for a cap of $cap"
	"$hwt" report profile -o cut.$unit.prof cut.$unit.hwt 2>report.$unit.err ||
		fail "$unit: the cut trace does not decode cleanly (exit $?): $(cat report.$unit.err)"
	grep -q 'warning: the trace stopped at --max-trace-size (102400 bytes)' report.$unit.err ||
		fail "$unit: the report does not say the trace stopped: $(cat report.$unit.err)"
	[ "$(grep -c warning report.$unit.err)" = 1 ] ||
		fail "$unit: warnings besides the stop: $(cat report.$unit.err)"
	"$hwt" dump cut.$unit.hwt >dump.$unit.out 2>&1 || fail "$unit: hwt dump: $(cat dump.$unit.out)"
	grep -q 'max_trace_size_reached' dump.$unit.out || fail "$unit: hwt dump hides the stop"

	# A process started after the cap runs natively, still followed.
	"$hwt" record --unit $unit --trace '*/loops' --max-trace-size 1 -o after.$unit.hwt -- \
		sh -c "'$programs/loops' >/dev/null && '$programs/loops' >/dev/null && echo done" \
		>after.$unit.out 2>after.$unit.err || fail "$unit: hwt record: $(cat after.$unit.err)"
	grep -qx done after.$unit.out || fail "$unit: the command did not run to its end"
	[ "$(key after.$unit.hwt/summary processes)" = 1 ] ||
		fail "$unit: $(key after.$unit.hwt/summary processes) processes traced, want 1"
	grep -q 'not traced: 1 process started after the trace reached --max-trace-size' \
		after.$unit.err ||
		fail "$unit: the second loops is not said native for the cap: $(cat after.$unit.err)"
	"$hwt" dump after.$unit.hwt 2>&1 | grep -q 'started after the trace reached --max-trace-size' ||
		fail "$unit: hwt dump does not list the process started after the cap"
	"$hwt" report profile -o after.$unit.prof after.$unit.hwt 2>report2.$unit.err ||
		fail "$unit: the first loops does not decode cleanly: $(cat report2.$unit.err)"
	echo "ok $unit: $bytes bytes kept of a 100 KiB cap; a later process native"
done

# Bad sizes: a usage error before anything runs.
for bad in 0 10X -5 K 99999999999999999999G; do
	"$hwt" record --max-trace-size "$bad" -o bad.hwt -- true 2>bad.err
	[ $? = 2 ] || fail "--max-trace-size $bad: not a usage error"
	grep -q -- '--max-trace-size wants a size' bad.err || fail "--max-trace-size $bad: $(cat bad.err)"
	[ ! -e bad.hwt ] || fail "--max-trace-size $bad: a bundle was made"
done
echo "ok: bad sizes refused"
