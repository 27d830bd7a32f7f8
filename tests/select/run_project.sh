#!/bin/sh
# Selection by project (docs/select.md): a suite driven by a program built
# with -g outside the project (a small C test runner in a temporary
# directory) traces only the project's binaries, whatever debug info the
# driver has. The root comes from a git work tree (also reached through a
# symbolic link), from an out-of-tree CMake build's CMakeCache.txt (run
# from the build directory, no git), from an autotools config.status
# (sources compiled by relative paths, run from a subdirectory), or from
# --root; with none, the current directory. Each case checks the bundle
# (the driver untraced with the project reason, the tests traced), the
# lcov (only the project's sources), the messages, and the verdict cache.
# usage: run_project.sh BUILD_DIR WORKDIR
set -u
build=$1 work=$2
hwt=$build/bin/hwt cov=$build/bin/hwt-cov
suite=$(cd "$(dirname "$0")" && pwd)/suite
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

. "$(dirname "$0")/../work_dir.sh"
# Outside the repository (its git work tree would be the root): a temporary directory.
T=$(mktemp -d "${TMPDIR:-/tmp}/hwt-project.XXXXXX") || exit 1
T=$(cd "$T" && pwd -P)
hwt_test_work_dir "$work" "$T"
mkdir -p "$work" "$T/tools"
W=$(cd "$work" && pwd)
case $T/ in "$(cd "$(dirname "$0")/../.." && pwd -P)"/*)
	echo "SKIP: the temporary directory $T is inside the repository"; exit 77 ;;
esac

# The driver: runs each argument with /bin/sh, counts failures. Built with -g.
cat >"$T/tools/driver.c" <<'EOF'
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int failed = 0, st;

	for (int i = 1; i < argc; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			execl("/bin/sh", "sh", "-c", argv[i], (char *)0);
			_exit(127);
		}
		failed += waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0;
	}
	printf("driver: %d failed\n", failed);
	return failed != 0;
}
EOF
cc -g -O0 "$T/tools/driver.c" -o "$T/tools/driver" || { echo "FAIL build driver"; exit 1; }
driver=$T/tools/driver

project() { # dir: a project's sources
	mkdir -p "$1/src" && cp "$suite/calc.c" "$suite/calc.h" "$suite/test_calc.c" "$1/src/"
}

why_outside="not the project's: its debug info names no source under the root"

# case name root-source-phrase test-binary: the suite run from the current directory
check() { # name expected-root how binary [hwt-cov options]
	name=$1 root=$2 how=$3 bin=$4
	shift 4
	"$cov" --keep "$W/$name.hwt" -o "$W/$name.info" "$@" -- "$driver" \
		"$bin gcd 7" "$bin fib 9" >"$W/$name.out" 2>"$W/$name.err"
	st=$?
	if [ $st -ne 0 ] || ! grep -q "driver: 0 failed" "$W/$name.out"; then
		bad "$name: status $st"; cat "$W/$name.err"; return
	fi
	if grep -q "root $root ($how)" "$W/$name.err"; then
		ok "$name: root $root ($how) said"
	else
		bad "$name: root not said as $root ($how)"; head -3 "$W/$name.err"
	fi
	"$hwt" dump "$W/$name.hwt" >"$W/$name.dump" 2>/dev/null
	if grep -q "untraced .*path=\"$driver\" reason=\"$why_outside\"" "$W/$name.dump"; then
		ok "$name: the driver ran natively, as not the project's"
	else
		bad "$name: the driver is not untraced as not the project's"
		grep "$driver" "$W/$name.dump" | head -3
	fi
	n=$(grep -c "process-start .*path=\"[^\"]*/test_[a-z]*\"" "$W/$name.dump")
	all=$(grep -c "process-start" "$W/$name.dump")
	if [ "$n" = 2 ] && [ "$all" = 2 ]; then
		ok "$name: the 2 test processes traced, nothing else"
	else
		bad "$name: $n test_calc processes traced of $all (want 2 of 2)"
	fi
	others=$(grep '^SF:' "$W/$name.info" | grep -v "^SF:$root/" | grep -v "^SF:$T/link/")
	if grep -q "^SF:.*/src/calc.c" "$W/$name.info" && [ -z "$others" ]; then
		ok "$name: the lcov has the project's sources only"
	else
		bad "$name: lcov sources: $(grep '^SF:' "$W/$name.info" | tr '\n' ' ')"
	fi
	if grep -q "not traced: $driver ($why_outside)" "$W/$name.err" &&
	   [ "$(grep -c "not traced: $driver" "$W/$name.err")" = 1 ]; then
		ok "$name: the driver said once as left out"
	else
		bad "$name: the driver not said (once) as left out"; cat "$W/$name.err"
	fi
	if [ -n "$(ls "$W/$name.hwt/select" 2>/dev/null)" ] &&
	   ! grep -q "stray" "$W/$name.err"; then
		ok "$name: verdicts kept by build-id in the bundle's select/"
	else
		bad "$name: no verdict cache in $W/$name.hwt/select"
	fi
}

# 1. A git work tree, run from it (and its tests built there).
P=$T/git-proj
project "$P" && mkdir -p "$P/.git" &&
if command -v git >/dev/null; then rm -rf "$P/.git" && git init -q "$P"; fi &&
cc -g -O0 -I"$P/src" "$P/src/calc.c" "$P/src/test_calc.c" -o "$P/test_calc" ||
	{ echo "FAIL build git case"; exit 1; }
cd "$P" && check git "$P" "the git work tree" ./test_calc; cd "$W"
# hwt record says the root and the program it left out, too.
cd "$P" && "$hwt" record -o "$W/record.hwt" -- "$driver" "./test_calc gcd 7" >"$W/record.out" 2>"$W/record.err"
cd "$W"
if grep -q "hwt record: root $P (the git work tree)" "$W/record.err" &&
   grep -q "hwt record: not traced: $driver ($why_outside)" "$W/record.err"; then
	ok "hwt record: the root and the driver left out said"
else
	bad "hwt record: messages:"; cat "$W/record.err"
fi

# 1b. The same work tree reached through a symbolic link, built through it:
# the debug info names the link's path, the root is canonical.
ln -s "$P" "$T/link" && mkdir -p "$T/link/sub" &&
cc -g -O0 -I"$T/link/src" "$T/link/src/calc.c" "$T/link/src/test_calc.c" -o "$T/link/sub/test_link" ||
	{ echo "FAIL build link case"; exit 1; }
cd "$T/link/sub" && check link "$P" "the git work tree" ./test_link; cd "$W"

# 2. An out-of-tree CMake build, run from the build directory (no git).
if command -v cmake >/dev/null; then
	C=$T/cmake-proj B=$T/cmake-build
	project "$C" &&
	cat >"$C/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.13)
project(calc C)
add_executable(test_calc src/calc.c src/test_calc.c)
EOF
	cmake -S "$C" -B "$B" -DCMAKE_BUILD_TYPE=Debug >"$W/cmake.log" 2>&1 &&
		cmake --build "$B" >>"$W/cmake.log" 2>&1 ||
		{ echo "FAIL cmake build"; cat "$W/cmake.log"; exit 1; }
	cd "$B" && check cmake "$C" "CMakeCache.txt's CMAKE_HOME_DIRECTORY" ./test_calc; cd "$W"
else
	echo "skip cmake case: no cmake"
fi

# 3. An autotools-like build: config.status names srcdir relative to the build
# directory, the sources are compiled by relative paths (../src/x.c from the
# build directory's src/), and the suite runs from a subdirectory.
A=$T/auto-proj AB=$T/auto-build
project "$A" && mkdir -p "$AB/src" "$AB/tests" &&
printf "#! /bin/sh\n# Generated by configure.\nac_pwd='%s'\nsrcdir='../auto-proj'\nac_cs_config=''\n" \
	"$AB" >"$AB/config.status" &&
(cd "$AB/src" && cc -g -O0 -I../../auto-proj/src ../../auto-proj/src/calc.c \
	../../auto-proj/src/test_calc.c -o test_calc) || { echo "FAIL build autotools case"; exit 1; }
cd "$AB/tests" && check autotools "$A" "config.status's srcdir" ../src/test_calc; cd "$W"

# 4. --root, from a directory with no marker; and the default there: the
# current directory, which holds the driver too, so the driver is traced.
R=$T/plain/proj
project "$R" && cc -g -O0 -I"$R/src" "$R/src/calc.c" "$R/src/test_calc.c" -o "$R/test_calc" ||
	{ echo "FAIL build --root case"; exit 1; }
cd "$T" && check root "$R" "--root" "$R/test_calc" --root "$R"; cd "$W"
(cd "$T" && "$cov" --keep "$W/cwd.hwt" -o "$W/cwd.info" -- "$driver" "$R/test_calc gcd 7" \
	>"$W/cwd.out" 2>"$W/cwd.err")
if grep -q "root $T (no git work tree or build directory around: the current directory)" "$W/cwd.err" &&
   "$hwt" dump "$W/cwd.hwt" 2>/dev/null | grep -q "process-start .*path=\"$driver\""; then
	ok "no marker: the current directory is the root, said; the driver under it is traced"
else
	bad "no marker: the root or the driver's verdict"; cat "$W/cwd.err"
fi

# A library outside the root does not select a program (rule 8, same test).
mkdir -p "$T/outlib" &&
cc -g -O0 -fPIC -shared "$suite/calc.c" -o "$T/outlib/libcalc.so" &&
cc -g0 -O1 -I"$suite" "$suite/test_calc.c" -L"$T/outlib" -lcalc -Wl,-rpath,"$T/outlib" \
	-o "$P/runner_out" && strip "$P/runner_out" || { echo "FAIL build library case"; exit 1; }
cd "$P" && "$hwt" record -q -o "$W/lib.hwt" -- ./runner_out gcd 7 >"$W/lib.out" 2>&1; cd "$W"
if "$hwt" dump "$W/lib.hwt" 2>/dev/null | grep -q "untraced .*path=\"$P/runner_out\" reason=\"no debug info\""; then
	ok "a program is not traced for a library outside the root"
else
	bad "library outside the root: runner_out not untraced"; "$hwt" dump "$W/lib.hwt" | grep runner_out
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ] && [ $pass -gt 0 ]
