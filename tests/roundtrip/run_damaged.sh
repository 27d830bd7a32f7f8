#!/bin/sh
# A real recording, damaged the ways a crash or a full disk damages it, must
# still be read: a clear warning, the records before the damage, exit 1.
# usage: run_damaged.sh HWT WORKDIR PROGRAM
set -u
hwt=$1 work=$2 program=$3
passed=0 failed=0
check() { # name, condition
	if eval "$2"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $1"; fi
}
. "$(dirname "$0")/../work_dir.sh"
hwt_test_work_dir "$work" "$work.*"
mkdir -p "$(dirname "$work")"
"$hwt" record -q -o "$work" -- "$program" >/dev/null 2>&1 || { echo "FAIL: record"; exit 1; }
sb=$(ls "$work"/sideband/*.sb | head -n 1)
pt=$(ls "$work"/streams/*.pt | head -n 1)
records=$("$hwt" dump --sideband-only "$work" 2>/dev/null | grep -c ' t=[0-9]')
check "clean bundle lists records" "[ $records -gt 5 ]"
"$hwt" dump "$work" >/dev/null 2>&1
check "clean bundle exits 0" "[ $? -eq 0 ]"

# A torn tail: the sideband ends 12 bytes into its last record.
size=$(stat -c %s "$sb")
cp "$sb" "$work.sb"
last=$("$hwt" dump --sideband-only "$work" | grep ' t=[0-9]' | tail -n 1 | sed 's/^ *@\([0-9]*\).*/\1/')
truncate -s $((last + 12)) "$sb"
"$hwt" dump --sideband-only "$work" >"$work.out" 2>"$work.err"
status=$?
check "torn tail exits 1" "[ $status -eq 1 ]"
check "torn tail is named with its offset" "grep -q 'torn tail at byte $last' '$work.err'"
kept=$(grep -c ' t=[0-9]' "$work.out")
check "records before the torn tail are kept" "[ $kept -eq $((records - 1)) ]"
cp "$work.sb" "$sb"

# A stream cut in the middle of a packet.
size=$(stat -c %s "$pt")
truncate -s $((size - 1)) "$pt"
"$hwt" dump --packets "$work" >"$work.out" 2>"$work.err"
status=$?
check "cut stream does not crash dump" "[ $status -lt 128 ]"
check "cut stream is still listed" "grep -q '^stream ' '$work.out'"

# The recorder was killed before the summary.
rm "$work/summary"
"$hwt" dump --sideband-only "$work" >/dev/null 2>"$work.err"
status=$?
check "missing summary exits 1" "[ $status -eq 1 ]"
check "missing summary is reported" "grep -qi 'summary' '$work.err'"
echo "damaged: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
