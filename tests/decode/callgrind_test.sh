#!/bin/sh
# Per-instruction counts of hwt's profile against callgrind's, for one run
# of a single-threaded program (see callgrind_compare.py for the rules).
#
# usage: callgrind_test.sh BUILD_DIR WORK_DIR PROG [ARGS...]
# Records PROG with `hwt record`, runs it again under
# `valgrind --tool=callgrind --dump-instr=yes --skip-plt=no` with the same
# environment, decodes the bundle into a profile and compares every image
# both name (the program's own image must be among them).
# HWT_TEST_CALLGRIND=no (the sanitizer build): hwt's side only, record,
# decode and the profile read back; callgrind and the comparison, the same
# in both builds, are the normal build's.
set -u
build=$1
work=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
hwt=$build/bin/hwt
tool=$build/tests/decode/profile_tool
prog=$(readlink -f "$1")
shift

fail() {
	echo "FAIL: $*"
	exit 1
}

. "$(dirname "$0")/../work_dir.sh"
hwt_test_work_dir "$work"
mkdir -p "$work" || exit 1
# Both runs see the same environment: ld.so's work depends on it.
HWT_VALGRIND_LIB=$build/lib/hwt/valgrind
VALGRIND_LIB=$HWT_VALGRIND_LIB
export HWT_VALGRIND_LIB VALGRIND_LIB

# --trace-all --no-preload: no library of hwt's in the process, which would
# change ld.so's work.
# The Valgrind unit: callgrind runs the program on the same simulated CPU (under
# QEMU, libc picks other string functions for its CPUID, and ld.so sees no vDSO).
"$hwt" record --unit valgrind --trace-all --no-preload -o "$work/bundle" -- "$prog" "$@" >"$work/record.out" 2>"$work/record.err" ||
	fail "hwt record exited $?: $(cat "$work/record.err")"
if [ "${HWT_TEST_CALLGRIND:-yes}" != no ]; then
	valgrind --tool=callgrind --dump-instr=yes --skip-plt=no \
		--callgrind-out-file="$work/callgrind.out" "$prog" "$@" \
		>"$work/callgrind.stdout" 2>"$work/callgrind.err" ||
		fail "callgrind exited $?: $(cat "$work/callgrind.err")"
	cmp -s "$work/record.out" "$work/callgrind.stdout" ||
		fail "the two runs printed different output"
fi

"$tool" report "$work/bundle" -o "$work/profile" --stats 2>"$work/report.err"
rc=$?
cat "$work/report.err"
[ $rc -eq 0 ] || fail "hwt report profile exited $rc"
"$tool" insns "$work/profile" >"$work/insns" || fail "profile_tool insns"
"$tool" maps "$work/bundle" >"$work/maps" || fail "profile_tool maps"
if [ "${HWT_TEST_CALLGRIND:-yes}" = no ]; then
	echo "ok: hwt's side (HWT_TEST_CALLGRIND=no: callgrind's counts are compared in the normal build)"
	exit 0
fi
python3 "$here/callgrind_compare.py" "$work/insns" "$work/callgrind.out" \
	--maps "$work/maps" --require "$prog" --min-match 50
