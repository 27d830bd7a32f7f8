#!/bin/sh
# The lcov writer alone, without hwt's decoder: per-instruction counts from
# callgrind (--dump-instr=yes --collect-jumps=yes) of cov_basic built
# without PIE (so that callgrind's addresses are the ELF's), written as lcov
# by lcov_counts, compared with gcov as gcov_oracle.py compares hwt-cov.
#   callgrind_oracle.sh LCOV_COUNTS TESTS_LCOV_DIR WORK_DIR
set -eu
counts_tool=$1
here=$2
work=$3
src=$here/src/cov_basic.c
rm -rf "$work"
mkdir -p "$work"
cd "$work"

gcc -O0 -g --coverage -o oracle "$src"
./oracle >/dev/null
lcov --quiet --capture --directory . --output-file gcov.info

status=0
for cc in gcc clang-19; do
	command -v "$cc" >/dev/null || continue
	"$cc" -O0 -g -no-pie -o "prog_$cc" "$src"
	valgrind --tool=callgrind --dump-instr=yes --collect-jumps=yes \
		--callgrind-out-file="cg_$cc.out" "./prog_$cc" >/dev/null 2>&1
	python3 "$here/callgrind_counts.py" "cg_$cc.out" 0x400000 0x800000 >"counts_$cc.txt"
	"$counts_tool" "prog_$cc" "counts_$cc.txt" >"hwt_$cc.info"
	echo "cov_basic ($cc, callgrind counts):"
	python3 "$here/gcov_oracle.py" --cc "$cc" --compare gcov.info "hwt_$cc.info" "$src" ||
		status=1
	# genhtml and lcov read it without a word.
	if [ -n "$(lcov --summary "hwt_$cc.info" 2>&1 >/dev/null)" ] ||
	   [ -n "$(genhtml --quiet --branch-coverage -o "html_$cc" "hwt_$cc.info" 2>&1)" ]; then
		echo "FAIL: lcov or genhtml complained about hwt_$cc.info"
		status=1
	fi
done
exit $status
