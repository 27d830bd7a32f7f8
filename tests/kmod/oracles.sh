#!/bin/bash
# On the host: what the kernel unit's recordings are compared with
# (check_records.sh), from the Valgrind unit and callgrind. It does not depend
# on the guest's kernel, so CTest runs it once (the CTest test kmod.oracles) for
# the QEMU test of every kernel. Writes into ORACLE_DIR, last a file "done".
#   oracles.sh BUILD_DIR ORACLE_DIR
# - vg.PROG.prof: the Valgrind unit's profile of each deterministic program
#   (PROG.status: its exit status);
# - cg.FUNCTION: callgrind's self cost of each --filter'ed function;
# - vg.sel.raw_execve: the Valgrind unit's bundle of raw_execve (default selection);
# - calc.valgrind.info: hwt-cov --unit valgrind of examples/calc's suite.
set -u
build=$1 dir=$2
hwt=$build/bin/hwt
P=$build/tests/programs
rm -rf "$dir"
mkdir -p "$dir"

# The programs the kernel unit's counts are compared for (check_records.sh).
for prog in loops switch_table recursion function_pointers plt_calls dlopen_lib threads \
	    fork_exec signal_handler longjmp syscalls string_ops abort loops_o2 threads_o2 \
	    signal_handler_o2 cxx_virtual cxx_exceptions; do
	"$hwt" record --unit valgrind -q --trace-all --no-preload -o "$dir/vg.$prog" -- "$P/$prog" >/dev/null 2>&1
	echo $? > "$dir/$prog.status"
	"$hwt" report profile -q "$dir/vg.$prog" -o "$dir/vg.$prog.prof" 2>/dev/null
	rm -rf "$dir/vg.$prog"
done

# Self cost; a recursive function's is split over fib, fib'2, ...
for f in loops:nested_for recursion:fib function_pointers:cmp_int; do
	prog=${f%:*} fn=${f#*:}
	valgrind --tool=callgrind --callgrind-out-file="$dir/callgrind.$prog" "$P/$prog" >/dev/null 2>&1
	callgrind_annotate --inclusive=no --threshold=100 "$dir/callgrind.$prog" 2>/dev/null |
		awk -v fn="$fn" '$0 !~ /=>/ && $0 ~ (":" fn "('"'"'[0-9]+)? ") {
			gsub(",", "", $1); n += $1 } END { if (n) print n }' > "$dir/cg.$fn"
done

"$hwt" record --unit valgrind -q -o "$dir/vg.sel.raw_execve" -- "$P/raw_execve" >/dev/null 2>&1
"$build/bin/hwt-cov" --unit valgrind -q -o "$dir/calc.valgrind.info" -- \
	sh "$build/examples/calc/run-tests.sh" >/dev/null 2>&1
touch "$dir/done"
