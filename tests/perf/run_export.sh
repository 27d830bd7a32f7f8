#!/bin/sh
# Records a program with a software trace unit, exports the bundle as
# perf.data and checks that Linux perf's Intel PT decoder lists exactly the
# taken branches libipt decodes from the bundle (branches_vs_perf.py).
# usage: run_export.sh HWT CHECK WORKDIR EXPECTED_STATUS UNIT PROGRAM ARGS...
set -u
hwt=$1 check=$2 work=$3 expected=$4 unit=$5
shift 5
# The aarch64 programs are built only where the cross compilers are.
[ -e "$1" ] || { echo "SKIP: $1 was not built"; exit 77; }
command -v perf >/dev/null || { echo "SKIP: perf (linux-perf) is not installed"; exit 77; }
. "$(dirname "$0")/../work_dir.sh"
hwt_test_work_dir "$work" "$work.*"
mkdir -p "$(dirname "$work")"
"$hwt" record -q --unit "$unit" -o "$work" -- "$@" >"$work.out" 2>"$work.err"
status=$?
if [ "$status" != "$expected" ]; then
	echo "FAIL: exit status $status, expected $expected"
	cat "$work.err"
	exit 1
fi
"$hwt" export -q -o "$work.data" "$work" || exit 1
python3 "$(dirname "$0")/branches_vs_perf.py" "$check" "$work" "$work.data"
