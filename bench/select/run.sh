#!/bin/sh
# End-to-end coverage time on three test-suite shapes: hwt-cov with selection
# (the default), hwt-cov --trace-all, and the gcov flow (rebuild with
# --coverage, run, lcov --capture), against the native run.
#   ctest: a CTest suite of 20 tests (20 test processes under ctest)
#   make:  a `make check` suite (make, sh, env, xargs, python3 start 8 tests)
#   shell: a shell-driven suite of a few hundred short processes (25 tests
#          among grep, sed, cmp, cut, ... )
# usage: bench/select/run.sh BUILD_DIR [RUNS]   (prints medians and min..max)
set -eu
build=$(cd "$1" && pwd) runs=${2:-3}
cov=$build/bin/hwt-cov
here=$(cd "$(dirname "$0")" && pwd)
suite_src=$here/../../tests/select/suite
W=$(mktemp -d /tmp/hwt-bench-select.XXXXXX)
trap 'rm -rf "$W"' EXIT

# The code under test: plain -g -O0 build, and the --coverage build (timed in the gcov flow).
build_plain() { # dir
	mkdir -p "$1"
	cc -g -O0 -fPIC -shared "$suite_src/calc.c" -o "$1/libcalc.so"
	cc -g -O0 -I"$suite_src" "$suite_src/test_calc.c" -L"$1" -lcalc -Wl,-rpath,"$1" -o "$1/test_calc"
}
build_gcov() { # dir
	mkdir -p "$1"
	cc --coverage -g -O0 -fPIC -shared "$suite_src/calc.c" -o "$1/libcalc.so"
	cc --coverage -g -O0 -I"$suite_src" "$suite_src/test_calc.c" -L"$1" -lcalc \
		-Wl,-rpath,"$1" -o "$1/test_calc"
}

# The suites, each run as: suite_<name> DIR (DIR holds test_calc).
cat >"$W/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.20)
project(benchsuite NONE)
enable_testing()
foreach(i RANGE 1 20)
  math(EXPR m "${i} % 3")
  if(m EQUAL 0)
    add_test(NAME t${i} COMMAND ${DIR}/test_calc gcd ${i})
  elseif(m EQUAL 1)
    add_test(NAME t${i} COMMAND ${DIR}/test_calc fib ${i})
  else()
    add_test(NAME t${i} COMMAND ${DIR}/test_calc prime ${i}0)
  endif()
endforeach()
CM
printf '#!/bin/sh\nexec ctest --test-dir "$1/ctest" -Q\n' >"$W/suite_ctest.sh"
printf '#!/bin/sh\nexec make -s -f "%s/Makefile" B="$1" check >/dev/null\n' "$suite_src" >"$W/suite_make.sh"
cat >"$W/suite_shell.sh" <<'SH'
#!/bin/sh
# 25 tests, each checked with the usual utilities.
set -e
B=$1
T=$(mktemp -d)
for i in $(seq 1 25); do
	case $((i % 3)) in
	0) what=gcd ;; 1) what=fib ;; *) what=prime ;;
	esac
	$B/test_calc $what $i >"$T/out.$i"
	echo "$what ok" >"$T/exp.$i"
	cmp -s "$T/out.$i" "$T/exp.$i"
	grep -q ok "$T/out.$i"
	sed 's/ok/OK/' "$T/out.$i" | cut -d' ' -f2 | tr -d '\n' >/dev/null
	wc -l <"$T/out.$i" >/dev/null
	head -1 "$T/out.$i" | tail -1 >/dev/null
	basename "$T/out.$i" >/dev/null
	test "$(cat "$T/out.$i")" = "$what ok"
done
rm -rf "$T"
SH

configure_ctest() { # dir
	cmake -S "$W" -B "$1/ctest" -DDIR="$1" >/dev/null
}

now() { date +%s.%N; }
# stats "t1 t2 ..." -> "median (min..max)"
stats() { echo "$1" | tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {printf "%.2f s (%.2f..%.2f)", (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2), a[1], a[NR]}'; }

build_plain "$W/plain"
configure_ctest "$W/plain"
printf "%-6s %-22s %-22s %-22s %-22s %s\n" suite native hwt-cov "hwt-cov --trace-all" "gcov flow" "traced/all processes"
for s in ctest make shell; do
	tn= ts= ta= tg=
	for r in $(seq 1 "$runs"); do
		t0=$(now); sh "$W/suite_$s.sh" "$W/plain"; t1=$(now)
		tn="$tn $(echo "$t1 - $t0" | bc)"
		rm -rf "$W/b.sel" "$W/b.all"
		t0=$(now); "$cov" -q --keep "$W/b.sel" -o "$W/sel.info" -- sh "$W/suite_$s.sh" "$W/plain" 2>/dev/null; t1=$(now)
		ts="$ts $(echo "$t1 - $t0" | bc)"
		t0=$(now); "$cov" -q --trace-all --keep "$W/b.all" -o "$W/all.info" -- sh "$W/suite_$s.sh" "$W/plain" 2>/dev/null; t1=$(now)
		ta="$ta $(echo "$t1 - $t0" | bc)"
		rm -rf "$W/gcov"
		t0=$(now)
		build_gcov "$W/gcov"
		[ $s = ctest ] && configure_ctest "$W/gcov"
		sh "$W/suite_$s.sh" "$W/gcov"
		lcov -q --capture --directory "$W/gcov" -o "$W/gcov.info" >/dev/null 2>&1
		t1=$(now)
		tg="$tg $(echo "$t1 - $t0" | bc)"
	done
	procs="$(sed -n 's/^processes=//p' "$W/b.sel/summary")/$(sed -n 's/^processes=//p' "$W/b.all/summary")"
	printf "%-6s %-22s %-22s %-22s %-22s %s\n" $s "$(stats "$tn")" "$(stats "$ts")" "$(stats "$ta")" "$(stats "$tg")" "$procs"
done
