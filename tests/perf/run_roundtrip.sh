#!/bin/sh
# Round trip through perf.data: records a program with a software trace unit,
# exports the bundle as perf.data (file mode, pipe mode or compressed), imports
# that again and checks that the profile of the import equals the bundle's
# byte for byte, and so do the lcov and AutoFDO outputs and the diagnostics.
# usage: run_roundtrip.sh HWT WORKDIR EXPECTED_STATUS UNIT FORMAT PROGRAM ARGS...
#   FORMAT: file, pipe or compress
set -u
hwt=$1 work=$2 expected=$3 unit=$4 format=$5
shift 5
# The aarch64 programs are built only where the cross compilers are.
[ -e "$1" ] || { echo "SKIP: $1 was not built"; exit 77; }
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
case $format in
file) "$hwt" export -q -o "$work.data" "$work" ;;
pipe) "$hwt" export -o - "$work" >"$work.data" ;;
compress) "$hwt" export -q -z -o "$work.data" "$work" ;;
esac || { echo "FAIL: export"; exit 1; }
if [ "$format" = pipe ]; then
	"$hwt" import -q -o "$work.imp" - <"$work.data"
else
	"$hwt" import -q -o "$work.imp" "$work.data"
fi || { echo "FAIL: import"; exit 1; }
failed=0
for report in profile lcov afdo afdo-text; do
	"$hwt" report $report -o "$work.$report" "$work" 2>"$work.$report.err" >/dev/null
	"$hwt" report $report -o "$work.imp.$report" "$work.imp" 2>"$work.imp.$report.err" >/dev/null
	if cmp -s "$work.$report" "$work.imp.$report"; then
		echo "ok   $report: the import's equals the bundle's ($(wc -c <"$work.$report") bytes)"
	else
		echo "FAIL $report: the import's differs from the bundle's"
		diff "$work.$report" "$work.imp.$report" | head -5
		failed=$((failed + 1))
	fi
	# The same warnings, but for the file names.
	sed "s|$work.imp|BUNDLE|g; s|$work|BUNDLE|g" "$work.$report.err" >"$work.w1"
	sed "s|$work.imp|BUNDLE|g; s|$work|BUNDLE|g" "$work.imp.$report.err" >"$work.w2"
	if ! cmp -s "$work.w1" "$work.w2"; then
		echo "FAIL $report: the import's warnings differ from the bundle's"
		diff "$work.w1" "$work.w2" | head -5
		failed=$((failed + 1))
	fi
done
[ -s "$work.profile" ] || { echo "FAIL: empty profile"; failed=$((failed + 1)); }
echo "roundtrip: $failed failed"
[ "$failed" = 0 ]
