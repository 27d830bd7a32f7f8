#!/bin/sh
# Snapshot mode (perf record -S): AUX data as snapshots of the ring buffer,
# which overlap where the buffer did not wrap between two of them and leave
# gaps where it did. There is no Intel PT here, so perfdata_tool makes such
# a file of an export (snapshot mode in AUXTRACE_INFO, AUX records flagged
# OVERWRITE, 2 KiB snapshots each repeating the last 512 bytes of the one
# before). The import must join overlapping snapshots into the bundle's
# profile byte for byte; with the second of every three snapshots left out
# it must name the gaps, exit 1, and keep the rest (fewer instructions).
# usage: run_snapshot.sh HWT PERFDATA_TOOL WORKDIR STATUS UNIT PROGRAM ARGS...
set -u
hwt=$1 tool=$2 work=$3 expected=$4 unit=$5
shift 5
. "$(dirname "$0")/../work_dir.sh"
hwt_test_work_dir "$work"
mkdir -p "$work"
failed=0
fail() { echo "FAIL $*"; failed=1; }
insns() { awk '$1 == "block" { n += $5 * $6 } END { print n + 0 }' "$1"; }

"$hwt" record -q --unit "$unit" -o "$work/ref" -- "$@" >/dev/null 2>&1
[ $? = "$expected" ] || fail "the recording's exit status"
"$hwt" export -q -o "$work/ref.data" "$work/ref" || fail "export"
"$hwt" report profile -q -o "$work/ref.prof" "$work/ref" || fail "the bundle's profile"

"$tool" copy "$work/ref.data" "$work/snap.data" snapshot || fail "snapshot copy"
"$hwt" import -o "$work/snap" "$work/snap.data" 2>"$work/snap.err"
status=$?
cat "$work/snap.err"
[ $status = 0 ] && grep -q "snapshots)" "$work/snap.err" && echo "ok   snapshot mode imports cleanly" ||
	fail "snapshot import: exit $status"
"$hwt" report profile -q -o "$work/snap.prof" "$work/snap"
cmp -s "$work/ref.prof" "$work/snap.prof" &&
	echo "ok   overlapping snapshots give the bundle's profile byte for byte" ||
	fail "the profile of the snapshots differs"

"$tool" copy "$work/ref.data" "$work/gaps.data" snapshot-gaps || fail "snapshot-gaps copy"
"$hwt" import -o "$work/gaps" "$work/gaps.data" 2>"$work/gaps.err"
status=$?
cat "$work/gaps.err"
[ $status = 1 ] && echo "ok   gaps: exit status 1" || fail "gaps: exit $status, expected 1"
n=$(grep -c "between snapshots (.* bytes of trace overwritten before perf read them): that trace is lost" "$work/gaps.err")
[ "$n" -ge 1 ] && echo "ok   gaps: $n threads' gaps named" || fail "the gaps are not named"
"$hwt" report profile -q -o "$work/gaps.prof" "$work/gaps" 2>/dev/null
[ $? -le 1 ] || fail "the bundle with gaps does not decode"
full=$(insns "$work/ref.prof") part=$(insns "$work/gaps.prof")
[ "$part" -gt 0 ] && [ "$part" -lt "$full" ] &&
	echo "ok   gaps: $part of $full instructions kept" ||
	fail "gaps: $part instructions of $full"
[ "$failed" = 0 ]
