#!/bin/sh
# Per-function counts of hwt's stacks against callgrind's for one run of a
# program (see callgrind_stacks.py for the rules).
#
# usage: callgrind_test.sh BUILD_DIR WORK_DIR PROG [ARGS...]
# Records PROG with `hwt record --unit valgrind --trace-all --no-preload`, runs it again
# under callgrind with the same environment, and compares the functions of
# PROG and of the test libraries next to it (strictly), and of the system
# libraries (listed). LD_BIND_NOW=1 in both runs: ld.so's lazy binding
# (PLT0, _dl_runtime_resolve) is a path where callgrind follows the stack
# pointer and a branch trace the return addresses (docs/flame.md).
set -u
build=$1
work=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
hwt=$build/bin/hwt
tool=$build/tests/stacks/stacks_tool
ptool=$build/tests/decode/profile_tool
prog=$(readlink -f "$1")
shift

fail() {
	echo "FAIL: $*"
	exit 1
}

. "$(dirname "$0")/../work_dir.sh"
hwt_test_work_dir "$work"
mkdir -p "$work" || exit 1
HWT_VALGRIND_LIB=$build/lib/hwt/valgrind
VALGRIND_LIB=$HWT_VALGRIND_LIB
LD_BIND_NOW=1
export HWT_VALGRIND_LIB VALGRIND_LIB LD_BIND_NOW

"$hwt" record --unit valgrind --trace-all --no-preload -o "$work/bundle" -- "$prog" "$@" >"$work/record.out" 2>"$work/record.err" ||
	fail "hwt record exited $?: $(cat "$work/record.err")"
valgrind --tool=callgrind --dump-instr=yes --skip-plt=no --vex-guest-chase=no \
	--callgrind-out-file="$work/callgrind.out" "$prog" "$@" \
	>"$work/callgrind.stdout" 2>"$work/callgrind.err" ||
	fail "callgrind exited $?: $(cat "$work/callgrind.err")"
cmp -s "$work/record.out" "$work/callgrind.stdout" || fail "the two runs printed different output"

"$hwt" report profile -q "$work/bundle" -o "$work/profile" || fail "hwt report profile"
"$ptool" insns "$work/profile" >"$work/insns" || fail "profile_tool insns"
"$ptool" maps "$work/bundle" >"$work/maps" || fail "profile_tool maps"
"$tool" stacks "$work/bundle" --callgrind --addresses --blocks -o "$work/insns.folded" --stats ||
	fail "stacks_tool (insns)"
"$tool" stacks "$work/bundle" --callgrind --addresses --weight calls -o "$work/calls.folded" ||
	fail "stacks_tool (calls)"
"$tool" stacks "$work/bundle" --callgrind --addresses --signal-roots -o "$work/roots.folded" ||
	fail "stacks_tool (signal roots)"
dir=$(dirname "$prog")
python3 "$here/callgrind_stacks.py" "$work/callgrind.out" "$work/maps" "$work/insns" \
	"$work/insns.folded" "$work/calls.folded" "$tool" --signal-roots "$work/roots.folded" \
	--require "$prog" \
	--strict "$prog" --strict "$dir/libhwtprobe.so" --strict "$dir/libhwtplugin.so"
