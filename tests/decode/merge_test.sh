#!/bin/sh
# Merging real profiles: `hwt merge` of two runs equals their sum, and the
# serialised result does not depend on the order or grouping of merges.
#
# usage: merge_test.sh BUILD_DIR WORK_DIR
set -u
build=$1
work=$2
here=$(cd "$(dirname "$0")" && pwd)
hwt=$build/bin/hwt
tool=$build/tests/decode/profile_tool
programs=$build/tests/programs

fail() {
	echo "FAIL: $*"
	exit 1
}

. "$(dirname "$0")/../work_dir.sh"
hwt_test_work_dir "$work"
mkdir -p "$work" || exit 1
cd "$work" || exit 1
# loopz: a second run of loops, whose bundle name is as long as the first's (the
# traced program's environment names the bundle: its length moves libc's work).
for run in loops:loops recursion:recursion loopz:loops plt:plt_calls; do
	name=${run%%:*}
	prog=${run#*:}
	"$hwt" record --trace-all -o "$name.hwt" -- "$programs/$prog" >/dev/null 2>"$name.record.err" ||
		fail "hwt record $prog: $(cat "$name.record.err")"
	"$tool" report "$name.hwt" -o "$name.prof" 2>"$name.report.err" ||
		fail "report $name: $(cat "$name.report.err")"
done

"$tool" merge -o ab.prof loops.prof recursion.prof || fail "merge a b"
"$tool" merge -o ba.prof recursion.prof loops.prof || fail "merge b a"
cmp ab.prof ba.prof || fail "merge is not commutative on the serialised form"
python3 "$here/profile_sum.py" ab.prof loops.prof recursion.prof || fail "a + b is not the sum"

"$tool" merge -o ab_c.prof ab.prof plt.prof || fail "merge (a b) c"
"$tool" merge -o bc.prof recursion.prof plt.prof || fail "merge b c"
"$tool" merge -o a_bc.prof loops.prof bc.prof || fail "merge a (b c)"
"$tool" merge -o abc.prof plt.prof loops.prof recursion.prof || fail "merge c a b"
cmp ab_c.prof a_bc.prof || fail "merge is not associative on the serialised form"
cmp ab_c.prof abc.prof || fail "merging three at once differs"
python3 "$here/profile_sum.py" abc.prof loops.prof recursion.prof plt.prof || fail "a + b + c"

# Two runs of a deterministic program: twice the counts of one.
"$tool" merge -o twice.prof loops.prof loopz.prof || fail "merge two runs"
"$tool" merge -o double.prof loops.prof loops.prof || fail "merge a a"
cmp twice.prof double.prof || fail "two runs of loops differ from twice one run"
a=$("$tool" total loops.prof)
b=$("$tool" total recursion.prof)
s=$("$tool" total ab.prof)
[ "$s" -eq $((a + b)) ] || fail "total instructions: $s != $a + $b"
[ "$a" -gt 100000 ] || fail "loops ran only $a instructions?"
"$tool" merge -o - loops.prof | cmp - loops.prof || fail "merge of one profile changes it"

# Bad input: a clear message with the line, non-zero exit, no output.
head -n 5 loops.prof >cut.prof
if "$tool" merge -o bad.prof loops.prof cut.prof 2>bad.err; then
	fail "merging a truncated profile succeeded"
fi
grep -q "cut.prof:6: not a profile" bad.err || fail "no clear message: $(cat bad.err)"
[ ! -e bad.prof ] || fail "an output was written despite the error"
echo "merge: ok (loops $a + recursion $b = $s instructions)"
