#!/bin/sh
# LeakSanitizer in processes that decode ETMv4 (OpenCSD loaded with dlopen;
# the sanitizer build only). The check runs before OpenCSD's static
# destructors (perfdata/opencsd.c), with no suppression:
#   - hwt report folded and hwt report profile of an aarch64 run: exit
#     status 0, no leak, no suppression used (LSAN_OPTIONS=print_suppressions=1
#     prints the table of any used);
#   - a process that loads OpenCSD and leaks a block: the leak is reported.
#
# usage: leak_check_test.sh BUILD_DIR WORK_DIR A64_PROG
# Exits 77 (skipped) when A64_PROG (an aarch64 build) is not there.
set -u
build=$1
work=$2
prog=$3
hwt=$build/bin/hwt
canary=$build/tests/decode/leak_canary

fail() {
	echo "FAIL: $*"
	exit 1
}

[ -x "$prog" ] || { echo "SKIP: $prog was not built"; exit 77; }
. "$(dirname "$0")/../work_dir.sh"
hwt_test_work_dir "$work"
mkdir -p "$work" || exit 1
cd "$work" || exit 1
# The sanitizers' defaults, leaks checked, whatever the environment says.
ASAN_OPTIONS=exitcode=99:detect_leaks=1
LSAN_OPTIONS=print_suppressions=1
export ASAN_OPTIONS LSAN_OPTIONS

"$canary" 2>canary.err
rc=$?
[ $rc -eq 77 ] && { cat canary.err; exit 77; }
[ $rc -eq 0 ] || fail "leak_canary exited $rc: $(cat canary.err)"
[ -s canary.err ] && fail "leak_canary: $(cat canary.err)"
"$canary" leak 2>leak.err
rc=$?
[ $rc -ne 0 ] || fail "leak_canary leak: exit status 0, the leak was not reported"
grep -q "Direct leak of 4242 byte" leak.err || fail "leak_canary leak: no leak of 4242 bytes reported: $(cat leak.err)"

"$hwt" record -o a.hwt -- "$prog" >/dev/null 2>record.err || fail "hwt record: $(cat record.err)"
ls a.hwt/streams/*.etm >/dev/null 2>&1 || fail "hwt record: no ETMv4 stream: $(cat record.err)"
for report in folded profile; do
	"$hwt" report "$report" -o "a.$report" a.hwt 2>"$report.err"
	rc=$?
	[ $rc -eq 0 ] || fail "hwt report $report exited $rc: $(cat "$report.err")"
	[ -s "a.$report" ] || fail "hwt report $report wrote nothing"
	! grep -q "LeakSanitizer\|Suppressions used" "$report.err" ||
		fail "hwt report $report: $(cat "$report.err")"
done
echo "ok: no leak and no suppression in hwt report folded|profile of an ETMv4 run; a leak beside OpenCSD reported"
