#!/bin/sh
# The stacks of an aarch64 run (ETMv4 streams, OpenCSD's decode) against two
# independent counts (etm_stacks_check.py says how):
#   - every function's exclusive instructions (--weight insns) equal the
#     profile's instructions in it, for the same bundle;
#   - with X86_PROG (the x86-64 build of the same source), the calls into
#     each of the program's functions (--weight calls) equal callgrind's
#     for that build;
# and: the parts of --tid add up to the whole, the run exported as cs_etm
# perf.data and imported again gives the same stacks, `hwt report
# flame|speedscope|chrome` write their files, exit status 0.
#
# usage: etm_test.sh BUILD_DIR WORK_DIR A64_PROG [X86_PROG]
# LD_BIND_NOW=1 in every run, as in callgrind_test.sh. Exits 77 (skipped)
# when A64_PROG was not built (no cross compiler).
set -u
build=$1
work=$2
prog=$3
x86=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
hwt=$build/bin/hwt
tool=$build/tests/stacks/stacks_tool
ptool=$build/tests/decode/profile_tool

fail() {
	echo "FAIL: $*"
	exit 1
}

[ -x "$prog" ] || { echo "SKIP: $prog was not built"; exit 77; }
. "$(dirname "$0")/../work_dir.sh"
hwt_test_work_dir "$work"
mkdir -p "$work" || exit 1
cd "$work" || exit 1
LD_BIND_NOW=1
export LD_BIND_NOW

"$hwt" record -o a.hwt -- "$prog" >a.out 2>a.rec || fail "hwt record: $(cat a.rec)"
"$hwt" report profile -q a.hwt -o a.prof || fail "hwt report profile"
"$ptool" insns a.prof >a.insns || fail "profile_tool insns"
"$tool" stacks a.hwt --addresses -o addr.folded || fail "stacks_tool stacks"
python3 "$here/etm_stacks_check.py" self "$tool" a.insns addr.folded || exit 1

"$hwt" report folded -o insns.folded a.hwt 2>folded.err || fail "hwt report folded: $(cat folded.err)"
"$hwt" report folded --weight calls -o calls.folded a.hwt || fail "hwt report folded --weight calls"
[ -s insns.folded ] && [ -s calls.folded ] || fail "no stacks"

# Each thread's stacks, added up, are the whole.
whole=$(awk '{ s += $NF } END { print s + 0 }' insns.folded)
parts=0
for tid in $(ls a.hwt/streams | sed -n 's/^[0-9]*\.[0-9]*-\([0-9]*\)\.etm$/\1/p' | sort -u); do
	"$hwt" report folded --tid "$tid" -o "tid.$tid.folded" a.hwt || fail "--tid $tid"
	n=$(awk '{ s += $NF } END { print s + 0 }' "tid.$tid.folded")
	[ "$n" -gt 0 ] || fail "--tid $tid: no stacks"
	parts=$((parts + n))
done
[ "$parts" -eq "$whole" ] || fail "the threads' stacks add up to $parts instructions, the whole to $whole"

"$hwt" report flame -o a.svg a.hwt || fail "hwt report flame"
grep -q '<svg' a.svg || fail "hwt report flame wrote no SVG"
for format in speedscope chrome; do
	"$hwt" report "$format" -o "a.$format.json" a.hwt || fail "hwt report $format"
	python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "a.$format.json" ||
		fail "hwt report $format: not JSON"
done

# The same run as cs_etm perf.data (hwt export, then hwt import, perf's
# layout): the same stacks.
"$hwt" export -q -o a.data a.hwt || fail "hwt export"
"$hwt" import -q -o imported.hwt a.data || fail "hwt import"
"$hwt" report folded -o imported.folded imported.hwt || fail "hwt report folded of the import"
"$hwt" report folded --weight calls -o imported.calls.folded imported.hwt ||
	fail "hwt report folded --weight calls of the import"
cmp -s insns.folded imported.folded || fail "the imported perf.data gives other stacks"
cmp -s calls.folded imported.calls.folded || fail "the imported perf.data gives other calls"

if [ -n "$x86" ]; then
	[ -x "$x86" ] || fail "$x86 was not built"
	valgrind --tool=callgrind --dump-instr=yes --skip-plt=no --vex-guest-chase=no \
		--callgrind-out-file=callgrind.out "$x86" >x86.out 2>callgrind.err ||
		fail "callgrind exited $?: $(cat callgrind.err)"
	cmp -s a.out x86.out || fail "the aarch64 and x86-64 builds printed different output"
	# The program's own functions (start-up code aside), defined in both builds.
	funcs() {
		nm --defined-only "$1" 2>/dev/null | awk '$2 ~ /^[Tt]$/ && $3 !~ /^_/ { print $3 }' |
			grep -Ev '^(frame_dummy|register_tm_clones|deregister_tm_clones|call_weak_fn)$' |
			sort -u
	}
	funcs "$x86" >x86.funcs
	funcs "$prog" >a64.funcs
	comm -12 x86.funcs a64.funcs >functions
	[ -s functions ] || fail "no function in both builds"
	python3 "$here/etm_stacks_check.py" calls callgrind.out calls.folded functions || exit 1
fi
echo "ok: $(basename "$prog"): stacks of $whole instructions in $(ls tid.*.folded | wc -l) threads"
