#!/bin/sh
# End-to-end coverage of a small test suite: hwt-cov (no rebuild: record,
# decode, lcov) against the gcov flow (rebuild with --coverage, run the
# suite, lcov --capture). Suites: tests/programs/mini_suite (-O2 -g, six
# programs sharing libminicalc.so) and examples/calc (-O0 -g, three
# programs sharing libcalc.so). Each figure is the best of REPEAT runs.
#   bench/cov/run.sh BUILD_DIR [REPEAT]
# BUILD_DIR is a configured and built tree (bin/hwt-cov and the suites).
set -eu
build=$(cd "$1" && pwd)
repeat=${2:-3}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/hwt-bench-cov.XXXXXX")
trap 'rm -rf "$work"' EXIT
hwt_cov=$build/bin/hwt-cov
# The report step alone, from a kept bundle: `hwt report lcov`, or the test
# build's stand-alone copy of it.
if "$build/bin/hwt" report lcov --help >/dev/null 2>&1; then
	report_lcov="$build/bin/hwt report lcov"
elif [ -x "$build/tests/lcov/report_lcov_cli" ]; then
	report_lcov=$build/tests/lcov/report_lcov_cli
else
	report_lcov=
fi

now() { date +%s.%N; }
# best SECONDS... -> the smallest
best() { printf '%s\n' "$@" | sort -g | head -1; }
# timed CMD... -> seconds (stdout/stderr of CMD discarded)
timed() {
	t0=$(now)
	"$@" >/dev/null 2>&1 || true
	t1=$(now)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
}

# gcov_flow NAME SRC_DIR FLAGS LIBNAME "LIB_SOURCES" "TESTS" RUN_SCRIPT
gcov_flow() {
	name=$1 srcdir=$2 flags=$3 lib=$4 libsrc=$5 tests=$6 script=$7
	d=$work/gcov-$name
	rm -rf "$d"
	mkdir -p "$d"
	cd "$d"
	# Rebuild with --coverage, compiling each file once, two at a time
	# like the project build (-j2).
	objs=""
	for s in $libsrc; do
		o=$(basename "$s" .c).o
		gcc $flags --coverage -fPIC -I"$srcdir" -c "$srcdir/$s" -o "$o" &
		objs="$objs $o"
	done
	wait
	gcc --coverage -shared -o "lib$lib.so" $objs
	for t in $tests; do
		gcc $flags --coverage -I"$srcdir" -c "$srcdir/$t.c" -o "$t.o" &
	done
	wait
	for t in $tests; do
		gcc --coverage -o "$t" "$t.o" -L. -l"$lib" -Wl,-rpath,"$d" &
	done
	wait
	sh "$srcdir/$script" "$d" >/dev/null 2>&1 || true
	lcov --quiet --capture --directory "$d" --output-file "$d/gcov.info" >/dev/null 2>&1
}

report() { # NAME NATIVE HWT GCOV
	printf '%-11s native %6.2f s   hwt-cov %6.2f s   gcov flow %6.2f s   hwt-cov/gcov %5.2fx\n' \
		"$1" "$2" "$3" "$4" "$(awk -v a="$3" -v b="$4" 'BEGIN { print a / b }')"
}

mini=$build/tests/programs/mini_suite
calc=$build/examples/calc
mini_tests="test_expr_basic test_expr_errors test_strutil test_checked test_number_theory test_mixed"
calc_tests="test_arith test_parse test_prime"

for suite in mini_suite calc; do
	if [ $suite = mini_suite ]; then
		dir=$mini srcdir=$root/tests/programs/mini_suite flags="-O2 -g" lib=minicalc
		libsrc="checked.c expr.c strutil.c" tests=$mini_tests
	else
		dir=$calc srcdir=$root/examples/calc flags="-O0 -g" lib=calc
		libsrc="calc.c" tests=$calc_tests
	fi
	n="" h="" g="" r=""
	i=0
	while [ $i -lt "$repeat" ]; do
		n="$n $(timed sh "$dir/run-tests.sh" "$dir")"
		h="$h $(timed "$hwt_cov" -q -o "$work/$suite.info" -- sh "$dir/run-tests.sh" "$dir")"
		g="$g $(timed gcov_flow "$suite" "$srcdir" "$flags" "$lib" "$libsrc" "$tests" run-tests.sh)"
		if [ -n "$report_lcov" ]; then
			rm -rf "$work/$suite.hwt"
			"$hwt_cov" -q --keep "$work/$suite.hwt" -o /dev/null -- sh "$dir/run-tests.sh" "$dir" \
				>/dev/null 2>&1 || true
			r="$r $(timed $report_lcov -q -o "$work/$suite.2.info" "$work/$suite.hwt")"
		fi
		i=$((i + 1))
	done
	lines_h=$(lcov --summary "$work/$suite.info" 2>&1 | sed -n 's/.*lines\.*: *\(.*\)/\1/p')
	lines_g=$(lcov --summary "$work/gcov-$suite/gcov.info" 2>&1 | sed -n 's/.*lines\.*: *\(.*\)/\1/p')
	report $suite "$(best $n)" "$(best $h)" "$(best $g)"
	[ -z "$r" ] || printf '            of which decode + lcov (no recording): %.2f s; trace %s\n' \
		"$(best $r)" "$(du -sh "$work/$suite.hwt" | cut -f1)"
	echo "            lines: hwt-cov $lines_h; gcov $lines_g"
done
