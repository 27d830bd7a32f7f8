#!/bin/sh
# hwt record --unit perf where there is no Intel PT: what can be tested of it.
# A stand-in for perf (fake_perf.sh) checks the exact perf command line hwt
# runs, runs the command and hands back a perf.data that hwt export wrote of
# a recording of the same program by the Valgrind unit; hwt imports it. The
# bundle must give that recording's profile; the command's exit status must
# come through; auto must pick perf where a PMU directory names intel_pt;
# --filter must become perf's address filter; hwt-cov --unit perf must write
# the lcov of the Valgrind unit's recording.
# usage: run_perf_unit.sh HWT HWT_COV WORKDIR STATUS PROGRAM ARGS...
set -u
hwt=$1 cov=$2 work=$3 expected=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)
. "$(dirname "$0")/../work_dir.sh"
hwt_test_work_dir "$work"
mkdir -p "$work/sources/intel_pt"
failed=0
fail() { echo "FAIL $*"; failed=1; }

"$hwt" record -q --unit valgrind -o "$work/ref" -- "$@" >/dev/null 2>&1
[ $? = "$expected" ] || fail "the reference recording's exit status"
"$hwt" export -q -o "$work/ref.data" "$work/ref" || fail "export"
export HWT_EVENT_SOURCES="$work/sources" HWT_PERF="$here/fake_perf.sh"
export FAKE_PERF_DATA="$work/ref.data" FAKE_PERF_LOG="$work/perf.log"

"$hwt" record --unit perf -o "$work/b" -- "$@" >"$work/out" 2>"$work/err"
status=$?
cat "$work/err"
[ "$status" = "$expected" ] && echo "ok   the command's exit status ($status) comes through" ||
	fail "exit status $status, expected $expected"
want="record -q -e intel_pt/tsc=1,mtc=1,mtc_period=3,noretcomp=1,branch=1/u --switch-events -o $work/b.perf-"
got=$(cat "$work/perf.log")
case $got in
"$want"??????"/perf.data -- $*") echo "ok   perf runs as: perf $got" ;;
*) fail "perf ran as: perf $got" ;;
esac
[ -d "$work/b" ] && ! ls -d "$work"/b.perf-* >/dev/null 2>&1 &&
	echo "ok   the work directory is gone" || fail "the work directory is left"
"$hwt" report profile -o "$work/ref.prof" "$work/ref" 2>/dev/null
"$hwt" report profile -o "$work/b.prof" "$work/b" 2>/dev/null
cmp -s "$work/ref.prof" "$work/b.prof" && echo "ok   the bundle gives the recording's profile" ||
	fail "the profile differs"
grep -q "^unit=perf$" "$work/b/hwt-bundle" || fail "the header does not say unit=perf"

# auto: perf where intel_pt is listed; not where it is not.
"$hwt" record --unit auto -o "$work/auto" -- "$@" >/dev/null 2>&1
grep -q "^unit=perf$" "$work/auto/hwt-bundle" 2>/dev/null && echo "ok   auto picks perf" ||
	fail "auto did not pick perf"
HWT_EVENT_SOURCES="$work/none" "$hwt" record -q --unit auto -o "$work/auto2" -- "$@" >/dev/null 2>&1
grep -q "^unit=perf$" "$work/auto2/hwt-bundle" && fail "auto picked perf without intel_pt" ||
	echo "ok   auto picks a software unit without intel_pt"
HWT_EVENT_SOURCES="$work/none" "$hwt" record --unit perf -o "$work/none_b" -- "$@" 2>"$work/none.err"
[ $? = 2 ] && grep -q "no Intel PT" "$work/none.err" && echo "ok   --unit perf without intel_pt: $(cat "$work/none.err")" ||
	fail "--unit perf without intel_pt"

# --filter: perf's address filter.
"$hwt" record -q --unit perf --filter "$1:main" -o "$work/f" -- "$@" >/dev/null 2>&1
grep -q -- "--filter filter main @ $1 " "$work/perf.log" && echo "ok   --filter becomes perf's filter" ||
	fail "--filter: perf ran as: perf $(cat "$work/perf.log")"

# Selection at the import: --no-trace leaves an image out, as untraced.
"$hwt" record -q --unit perf --no-trace "$(basename "$1")" -o "$work/sel" -- "$@" >/dev/null 2>&1
n=$("$hwt" dump "$work/sel" 2>/dev/null | grep -c "^image.*untraced.sb")
[ "$n" -ge 1 ] && echo "ok   --no-trace: $n process images left out as untraced" ||
	fail "--no-trace left nothing out"

# hwt-cov on top: the lcov of the Valgrind unit's recording.
"$cov" --unit perf -o "$work/perf.info" -- "$@" >/dev/null 2>&1
"$hwt" report lcov -o "$work/ref.info" "$work/ref" >/dev/null 2>&1
cmp -s "$work/perf.info" "$work/ref.info" && echo "ok   hwt-cov --unit perf writes the recording's lcov" ||
	fail "hwt-cov --unit perf: lcov differs"
[ "$failed" = 0 ]
