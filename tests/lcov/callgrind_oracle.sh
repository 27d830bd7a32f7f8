#!/bin/sh
# The lcov writer alone, without hwt's decoder: per-instruction counts from
# callgrind (--dump-instr=yes --collect-jumps=yes) of cov_basic built
# without PIE (so that callgrind's addresses are the ELF's), written as lcov
# by lcov_counts, compared with gcov as gcov_oracle.py compares hwt-cov.
# The program is built with CC (gcc or clang-19); exit status 77 (skipped)
# when CC is not installed.
#   callgrind_oracle.sh LCOV_COUNTS TESTS_LCOV_DIR WORK_DIR CC
set -eu
counts_tool=$1
here=$2
work=$3
cc=$4
src=$here/src/cov_basic.c
if ! command -v "$cc" >/dev/null; then
	echo "skipped: $cc not found (scripts/setup.sh --tests installs it)"
	exit 77
fi
. "$(dirname "$0")/../work_dir.sh"
hwt_test_work_dir "$work"
mkdir -p "$work"
cd "$work"

gcc -O0 -g --coverage -o oracle "$src"
./oracle >/dev/null
lcov --quiet --capture --directory . --output-file gcov.info

status=0
"$cc" -O0 -g -no-pie -o prog "$src"
valgrind --tool=callgrind --dump-instr=yes --collect-jumps=yes \
	--callgrind-out-file=cg.out ./prog >/dev/null 2>&1
python3 "$here/callgrind_counts.py" cg.out 0x400000 0x800000 >counts.txt
"$counts_tool" prog counts.txt >hwt.info
echo "cov_basic ($cc, callgrind counts):"
python3 "$here/gcov_oracle.py" --cc "$cc" --compare gcov.info hwt.info "$src" ||
	status=1
# genhtml and lcov read it without a word.
if [ -n "$(lcov --summary hwt.info 2>&1 >/dev/null)" ] ||
   [ -n "$(genhtml --quiet --branch-coverage -o html hwt.info 2>&1)" ]; then
	echo "FAIL: lcov or genhtml complained about hwt.info"
	status=1
fi
exit $status
