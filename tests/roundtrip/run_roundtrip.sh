#!/bin/sh
# Records a program with the software trace unit and checks, with libipt, that
# every stream decodes to exactly the blocks that ran.
# usage: run_roundtrip.sh HWT CHECK WORKDIR EXPECTED_STATUS [hwt record options --] PROGRAM ARGS...
set -u
hwt=$1 check=$2 work=$3 expected=$4
shift 4
. "$(dirname "$0")/../work_dir.sh"
hwt_test_work_dir "$work" "$work.*"
mkdir -p "$(dirname "$work")"
"$hwt" record -q --debug-blocks -o "$work" "$@" >"$work.out" 2>"$work.err"
status=$?
if [ "$status" != "$expected" ]; then
	echo "FAIL: exit status $status, expected $expected"
	cat "$work.err"
	exit 1
fi
"$check" "$work"
