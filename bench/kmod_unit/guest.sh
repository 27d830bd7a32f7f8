#!/bin/sh
# In the QEMU guest (run.sh): the kernel unit against native, and the three
# units' cost per short process, in the same guest. Writes bench.txt in OUT.
#   guest.sh BUILD OUT
set -u
build=$1 out=$2
hwt=$build/bin/hwt
P=$build/tests/programs
runs=${RUNS:-3}
cd "$out" || exit 1

median() { # command...: the median wall time of $runs runs, seconds
	i=0
	: > times
	while [ $i -lt $runs ]; do
		s=$(date +%s%N)
		"$@" > /dev/null 2>&1
		e=$(date +%s%N)
		echo $(( (e - s) / 1000000 )) >> times
		i=$((i + 1))
	done
	sort -n times | sed -n "$(( (runs + 1) / 2 ))p" | awk '{ printf "%.3f", $1 / 1000 }'
}
{
echo "== stepped instructions per second (a CPU-bound program, loops_static)"
native=$(median "$P/loops_static")
rm -rf b.step
s=$(date +%s%N)
"$hwt" record --unit kmod -q --trace-all --debug-blocks -o b.step -- "$P/loops_static" > /dev/null 2>&1
e=$(date +%s%N)
n=$("$(dirname "$0")/../../tests/kmod/stepped.py" b.step)
t=$(awk -v a=$s -v b=$e 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
echo "native $native s; kmod $t s for $n instructions: $(awk -v n=$n -v t=$t 'BEGIN { printf "%.0f", n / t }') instructions/s, $(awk -v a=$t -v b=$native 'BEGIN { printf "%.0f", a / b }')x native"
rm -rf b.step

echo "== per process: a suite of 10 short processes (tests/programs/vdso_calls, dynamic)"
cat > suite.sh <<EOS
for i in 1 2 3 4 5 6 7 8 9 10; do $P/vdso_calls > /dev/null; done
EOS
native=$(median sh suite.sh)
echo "native: $native s"
for unit in kmod qemu valgrind; do
	rm -rf b.suite
	# Valgrind's start-up under TCG takes minutes a suite: one run of it.
	[ $unit = valgrind ] && runs=1
	t=$(median sh -c "rm -rf b.suite; '$hwt' record --unit $unit -q --trace-all -o b.suite -- sh suite.sh")
	echo "$unit: $t s, $(awk -v a=$t -v b=$native 'BEGIN { printf "%.3f", (a - b) / 10 }') s per process more than native"
done
rm -rf b.suite suite.sh times
} > bench.txt 2>&1
