#!/bin/sh
# The project test on the DWARF that compilers write (project_check.c): gcc
# DWARF 5, 4 and 2, 64-bit DWARF, clang's DWARF 5 (strings by index:
# DW_FORM_strx, DW_AT_str_offsets_base) and 4, a name relative to the
# compilation directory, a separate debug file (.gnu_debuglink), a file
# outside the root, one without debug info, compressed sections (not
# read), and mutated copies (never a crash).
# usage: run_project_dwarf.sh PROJECT_CHECK WORKDIR
set -u
check=$1 work=$2
src=$(cd "$(dirname "$0")" && pwd)/suite
pass=0 fail=0
. "$(dirname "$0")/../work_dir.sh"
hwt_test_work_dir "$work"
mkdir -p "$work/root/src" "$work/root/build" "$work/other"
W=$(cd "$work" && pwd -P)
R=$W/root
cp "$src/calc.c" "$src/calc.h" "$R/src/"
cp "$src/calc.c" "$W/other/"
run() { # FILE EXPECTED
	if "$check" "$R" "$1" "$2"; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
}
build() { # COMPILER OUT FLAGS...: calc.c of the root as a shared object, from its build dir
	cc=$1 out=$2
	shift 2
	command -v "$cc" >/dev/null || { echo "skip $out: no $cc"; return 1; }
	(cd "$R/build" && "$cc" "$@" -O0 -fPIC -shared "$R/src/calc.c" -o "$out") ||
		{ fail=$((fail + 1)); echo "FAIL build $out"; return 1; }
}
build gcc gcc5.so -gdwarf-5 && run "$R/build/gcc5.so" in
build gcc gcc4.so -gdwarf-4 && run "$R/build/gcc4.so" in
build gcc gcc2.so -gdwarf-2 && run "$R/build/gcc2.so" in
build gcc gcc64.so -g -gdwarf64 && run "$R/build/gcc64.so" in
build clang-19 clang5.so -gdwarf-5 && run "$R/build/clang5.so" in
build clang-19 clang4.so -gdwarf-4 && run "$R/build/clang4.so" in
build gcc nodebug.so -g0 && run "$R/build/nodebug.so" no-debug
if build gcc gz.so -g -gz=zlib; then
	if readelf -S "$R/build/gz.so" | grep -A1 '\.debug_info' | grep -q ' C '; then
		run "$R/build/gz.so" unreadable
	else
		echo "skip gz.so: the linker wrote no compressed sections"
	fi
fi
# relative to DW_AT_comp_dir: compiled as ../src/calc.c from the build directory
(cd "$R/build" && gcc -g -O0 -fPIC -shared ../src/calc.c -o rel.so) && run "$R/build/rel.so" in
# outside the root
(cd "$W/other" && gcc -g -O0 -fPIC -shared calc.c -o other.so) && run "$W/other/other.so" outside
# a separate debug file next to the stripped one (.gnu_debuglink)
if command -v objcopy >/dev/null; then
	cp "$R/build/gcc5.so" "$R/build/split.so" &&
	objcopy --only-keep-debug "$R/build/split.so" "$R/build/split.so.debug" &&
	objcopy --strip-debug --add-gnu-debuglink="$R/build/split.so.debug" "$R/build/split.so" &&
	run "$R/build/split.so" in
	# the same debug file seen from another root: not the project's
	if "$check" "$W/other" "$R/build/split.so" outside; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
fi
# mutated copies: some verdict, no crash
for f in gcc5.so clang5.so gcc64.so; do
	[ -f "$R/build/$f" ] || continue
	if "$check" "$R" "$R/build/$f" mutate "$W" 300; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ] && [ $pass -gt 0 ]
