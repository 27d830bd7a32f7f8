#!/bin/sh
# The writers against what reads them: Chrome trace events and speedscope
# files checked against the folded stacks (timeline_check.py), and, when
# Chromium and the npm packages are there (scripts/setup.sh --tests installs them),
# the SVG flame graph driven in headless Chromium (check_flame.mjs), and the
# speedscope file and the Chrome trace events loaded by speedscope itself
# (check_speedscope.mjs; its Trace Event importer complains of any "E" that
# does not close the innermost slice and of slices left open).
#
# usage: web_test.sh BUILD_DIR WORK_DIR timeline|browser
# Exit status 77 (skipped) when what the browser part needs is missing.
set -u
build=$1
work=$2
part=$3
here=$(cd "$(dirname "$0")" && pwd)
hwt=$build/bin/hwt
prog=$build/tests/programs/recursion

fail() {
	echo "FAIL: $*"
	exit 1
}

if [ "$part" = browser ]; then
	for need in node /usr/bin/chromium; do
		command -v "$need" >/dev/null 2>&1 || { echo "SKIP: no $need"; exit 77; }
	done
	[ -d "$here/web/node_modules/playwright-core" ] && [ -d "$here/web/node_modules/speedscope" ] ||
		{ echo "SKIP: npm packages missing (scripts/setup.sh --tests installs them)"; exit 77; }
fi

. "$(dirname "$0")/../work_dir.sh"
hwt_test_work_dir "$work"
mkdir -p "$work" || exit 1
export HWT_VALGRIND_LIB="$build/lib/hwt/valgrind"
"$hwt" record --unit valgrind --trace-all -o "$work/run.hwt" -- "$prog" >/dev/null 2>"$work/record.err" ||
	fail "hwt record: $(cat "$work/record.err")"
"$hwt" report folded --max-depth 0 -o "$work/run.folded" "$work/run.hwt" || fail "hwt report folded"

if [ "$part" = timeline ]; then
	"$hwt" report chrome -o "$work/run.trace.json" "$work/run.hwt" || fail "hwt report chrome"
	"$hwt" report speedscope -o "$work/run.speedscope.json" "$work/run.hwt" ||
		fail "hwt report speedscope"
	python3 "$here/timeline_check.py" "$work/run.trace.json" "$work/run.speedscope.json" \
		"$work/run.folded"
	exit $?
fi

"$hwt" report flame --title "recursion (tests/programs)" -o "$work/run.svg" "$work/run.hwt" ||
	fail "hwt report flame"
"$hwt" report speedscope -o "$work/run.speedscope.json" "$work/run.hwt" || fail "hwt report speedscope"
"$hwt" report chrome -o "$work/run.trace.json" "$work/run.hwt" || fail "hwt report chrome"
cd "$here/web" || exit 1
node check_flame.mjs "$work/run.svg" "$work/run.folded" 'fib|ackermann' main "$work/flame.png" ||
	exit 1
node check_speedscope.mjs --png "$work/speedscope.png" "$work/run.speedscope.json" main fib ackermann \
	deep_sum is_even || exit 1
node check_speedscope.mjs "$work/run.trace.json" main fib ackermann deep_sum is_even || exit 1
echo "screenshots: $work/flame.png $work/speedscope.png (docs/images/ has copies)"
