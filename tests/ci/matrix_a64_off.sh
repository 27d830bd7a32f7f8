#!/bin/sh
# The build matrix's configuration (.ci/build-matrix.sh) leaves out the
# aarch64 test programs, which build the same whatever its compiler and
# build type: every build it makes passes -DHWT_A64_PROGRAMS=OFF, and a
# tree configured so has no aarch64_programs target, while BUILD_DIR
# (configured with the default) has it.
#   matrix_a64_off.sh SOURCE_DIR BUILD_DIR WORK_DIR
# Exits 77 (skipped) without aarch64-linux-gnu-gcc: no tree has the target then.
set -u
src=$1 build=$2 work=$3

fail() {
	echo "FAIL: $*"
	exit 1
}

# The one cmake configure line of the matrix script, joined across its
# continuation lines.
line=$(sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$src/.ci/build-matrix.sh" | grep 'cmake -S \. -B')
[ -n "$line" ] || fail ".ci/build-matrix.sh: no cmake configure line"
echo "$line" | grep -q -- '-DHWT_A64_PROGRAMS=OFF' ||
	fail ".ci/build-matrix.sh configures without -DHWT_A64_PROGRAMS=OFF: $line"

command -v aarch64-linux-gnu-gcc >/dev/null ||
	{ echo "SKIP: no aarch64-linux-gnu-gcc, no aarch64 test programs in any build"; exit 77; }
# The target lists read whole (grep -q would leave make a broken pipe).
targets=$(cmake --build "$build" --target help) || fail "$build: no target list"
echo "$targets" | grep -q 'aarch64_programs' ||
	fail "$build: no aarch64_programs target with the default options"

. "$src/tests/work_dir.sh"
hwt_test_work_dir "$work" "$work.log"
cmake -S "$src" -B "$work" -DHWT_TESTS=ON -DHWT_KMOD=OFF -DHWT_KMOD_TESTS=OFF \
	-DHWT_A64_PROGRAMS=OFF >"$work.log" 2>&1 || { cat "$work.log"; fail "configure with HWT_A64_PROGRAMS=OFF"; }
rm -f "$work.log"
targets=$(cmake --build "$work" --target help) || fail "$work: no target list"
if echo "$targets" | grep -q 'aarch64_programs'; then
	fail "configured with -DHWT_A64_PROGRAMS=OFF, the tree still builds aarch64_programs"
fi
echo "ok: the build matrix configures without the aarch64 test programs"
