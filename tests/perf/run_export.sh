#!/bin/sh
# Records a program with a software trace unit, exports the bundle as
# perf.data and checks that Linux perf's Intel PT decoder lists exactly the
# taken branches libipt decodes from the bundle (branches_vs_perf.py).
# usage: run_export.sh HWT DRIVER CHECK WORKDIR EXPECTED_STATUS UNIT PROGRAM ARGS...
set -u
hwt=$1 driver=$2 check=$3 work=$4 expected=$5 unit=$6
shift 6
command -v perf >/dev/null || { echo "SKIP: perf (linux-perf) is not installed"; exit 77; }
rm -rf "$work" "$work.data"
mkdir -p "$(dirname "$work")"
"$hwt" record -q --unit "$unit" -o "$work" -- "$@" >"$work.out" 2>"$work.err"
status=$?
if [ "$status" != "$expected" ]; then
	echo "FAIL: exit status $status, expected $expected"
	cat "$work.err"
	exit 1
fi
"$driver" export "$work" "$work.data" || exit 1
exec python3 "$(dirname "$0")/branches_vs_perf.py" "$check" "$work" "$work.data"
