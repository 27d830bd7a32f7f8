#!/bin/sh
# The edge decoder against libipt's (issue 15): on bundles of the test
# programs under both software units, with tiny PSB periods, and on damaged
# copies (bytes flipped, streams cut), `hwt report profile --decoder edge`
# must write the profile `--decoder libipt` writes, byte for byte, with the
# same warnings and exit status. Streams the edge decoder hands to libipt
# are counted; on clean bundles it must decode most of them itself, so
# that the comparison is not libipt against itself. With -j2 and -j4 and
# parts of 2 KiB (HWT_DECODE_SEGMENT) a stream is split at PSBs and decoded
# on 2 and 4 threads: the same profile and warnings as -j1; some parts
# must have been decoded on their own threads, and some split off a part
# being decoded for a thread done with its own. With one address space
# layout kept across streams (HWT_DECODE_LAYOUTS=1), the same again: the
# layout a stream walks in is dropped at each address space change, so
# the stream's counts are taken back out of it (walked again), as they
# are out of every layout when a stream that shares one with the streams
# before it goes to libipt (damaged copies of a later thread's stream).
#
# usage: edge_test.sh BUILD_DIR WORK_DIR
set -u
build=$1
work=$2
hwt=$build/bin/hwt
programs=$build/tests/programs

fail() {
	echo "FAIL: $*"
	exit 1
}

. "$(dirname "$0")/flip.sh"

. "$(dirname "$0")/../work_dir.sh"
hwt_test_work_dir "$work"
mkdir -p "$work" || exit 1
cd "$work" || exit 1

compared=0
edge_total=0
fallback_total=0
parts_total=0
redecoded_total=0
split_off_total=0
taken_back_total=0
# compare NAME: both decoders on NAME.hwt; $clean_edge/$clean_fb for clean ones
compare() {
	timeout 300 "$hwt" report profile -j1 --decoder libipt "$1.hwt" -o "$1.libipt" 2>"$1.libipt.err"
	rl=$?
	timeout 300 "$hwt" report profile -j1 --stats --decoder edge "$1.hwt" -o "$1.edge" 2>"$1.edge.err"
	re=$?
	[ $rl -le 1 ] || fail "$1: libipt decode exited $rl: $(cat "$1.libipt.err")"
	[ $re -eq $rl ] || fail "$1: exit status $re with the edge decoder, $rl with libipt"
	cmp -s "$1.libipt" "$1.edge" || {
		diff "$1.libipt" "$1.edge" | head -20
		fail "$1: the edge decoder's profile differs from libipt's"
	}
	grep -v "^hwt report profile: [0-9]* streams," "$1.edge.err" >"$1.edge.warn"
	cmp -s "$1.libipt.err" "$1.edge.warn" || {
		diff "$1.libipt.err" "$1.edge.warn" | head -20
		fail "$1: the warnings differ"
	}
	# One layout kept across streams: its blocks and totals are dropped and
	# flushed at every address space change.
	HWT_DECODE_LAYOUTS=1 timeout 300 "$hwt" report profile -j1 --stats --decoder edge "$1.hwt" \
		-o "$1.edge1" 2>"$1.edge1.err"
	[ $? -eq $rl ] || fail "$1: exit status with one layout kept differs"
	cmp -s "$1.edge" "$1.edge1" || fail "$1: one layout kept (HWT_DECODE_LAYOUTS=1) differs"
	grep -v "^hwt report profile: [0-9]* streams," "$1.edge1.err" | cmp -s - "$1.edge.warn" ||
		fail "$1: the warnings with one layout kept differ"
	t=$(sed -n 's/.* \([0-9]*\) walked again to take counts back.*/\1/p' "$1.edge1.err")
	taken_back_total=$((taken_back_total + ${t:-0}))
	t=$(sed -n 's/.* \([0-9]*\) walked again to take counts back.*/\1/p' "$1.edge.err")
	taken_back_total=$((taken_back_total + ${t:-0}))
	for j in 2 4; do
		HWT_DECODE_SEGMENT=2048 timeout 300 "$hwt" report profile -j$j --stats --decoder edge \
			"$1.hwt" -o "$1.edge$j" 2>"$1.edge$j.err"
		rj=$?
		[ $rj -eq $rl ] || fail "$1: exit status $rj with -j$j, $rl with libipt"
		cmp -s "$1.edge" "$1.edge$j" || fail "$1: -j$j (streams split at PSBs) differs from -j1"
		grep -v "^hwt report profile: [0-9]* streams," "$1.edge$j.err" | cmp -s - "$1.edge.warn" ||
			fail "$1: the warnings of -j$j differ"
		p=$(sed -n 's/.* \([0-9]*\) parts on threads of their own, \([0-9]*\) decoded again.*/\1/p' \
			"$1.edge$j.err")
		r=$(sed -n 's/.* \([0-9]*\) parts on threads of their own, \([0-9]*\) decoded again.*/\2/p' \
			"$1.edge$j.err")
		o=$(sed -n 's/.* decoded again, \([0-9]*\) split off for idle threads.*/\1/p' \
			"$1.edge$j.err")
		parts_total=$((parts_total + ${p:-0}))
		redecoded_total=$((redecoded_total + ${r:-0}))
		split_off_total=$((split_off_total + ${o:-0}))
	done
	line=$(grep "edge decoder:" "$1.edge.err") || fail "$1: no stats line"
	echo "$line" | grep -Eq '; decoded in [0-9]+\.[0-9]{4} s$' ||
		fail "$1: no decode time in the stats line: $line"
	e=$(echo "$line" | sed 's/.*edge decoder: \([0-9]*\) streams, \([0-9]*\) handed.*/\1/')
	f=$(echo "$line" | sed 's/.*edge decoder: \([0-9]*\) streams, \([0-9]*\) handed.*/\2/')
	compared=$((compared + 1))
	edge_total=$((edge_total + e))
	fallback_total=$((fallback_total + f))
	echo "  $1: same profile ($e streams by the edge decoder, $f handed to libipt)"
}

record() { # NAME ARGS... -- PROGRAM...
	name=$1
	shift
	timeout 300 "$hwt" record -o "$name.hwt" "$@" >/dev/null 2>"$name.rec.err"
	[ -d "$name.hwt/streams" ] || fail "$name: hwt record: $(cat "$name.rec.err")"
}

# Clean bundles: every program the round-trip tests run, both units.
for prog in loops loops_o2 switch_table switch_table_o2 recursion function_pointers \
	    function_pointers_o2 plt_calls dlopen_lib threads fork_exec signal_handler \
	    longjmp syscalls string_ops vdso_calls cxx_virtual cxx_exceptions crash killed abort; do
	[ -x "$programs/$prog" ] || continue
	record vg_$prog --unit valgrind -- "$programs/$prog"
	compare vg_$prog
done
for prog in loops switch_table_o2 function_pointers dlopen_lib threads signal_handler cxx_exceptions; do
	if ! command -v qemu-x86_64 >/dev/null; then
		break
	fi
	record qemu_$prog --unit qemu -- "$programs/$prog"
	compare qemu_$prog
done
# Tiny PSB periods: a PSB+ every 256 bytes, bound anywhere in a block.
for prog in loops function_pointers signal_handler threads; do
	record psb_$prog --unit valgrind --psb-period 256 -- "$programs/$prog"
	compare psb_$prog
done
clean_edge=$edge_total
clean_fallbacks=$fallback_total
[ "$clean_edge" -gt 0 ] && [ "$clean_fallbacks" -le $((clean_edge / 10)) ] ||
	fail "clean bundles: the edge decoder decoded $clean_edge streams, handed $clean_fallbacks to libipt"
[ "$parts_total" -gt 0 ] || fail "no stream was split at PSBs with -j2 and -j4"
[ "$split_off_total" -gt 0 ] || fail "no part was split off for an idle thread with -j2 and -j4"
clean_parts=$parts_total

# flipped PREFIX BASE STREAM N STEP LEN: N copies of BASE.hwt, PREFIX0.hwt
# on, each with 1 to LEN bytes of STREAM flipped at spread offsets, compared
flipped() {
	size=$(stat -c %s "$3")
	i=0
	while [ $i -lt "$4" ]; do
		rm -rf "$1$i.hwt"
		cp -r "$2.hwt" "$1$i.hwt"
		flip "$1$i.hwt/streams/$(basename "$3")" $(((size * i / $4 + $5 * i) % size)) $((1 + i % $6))
		compare "$1$i"
		i=$((i + 1))
	done
}

# Damaged copies: flipped bytes anywhere, cut streams; the same profile or
# the same errors at the same offsets.
base=vg_function_pointers
stream=$(ls $base.hwt/streams/*.pt | head -1)
flipped fuzz $base "$stream" 40 131 7
size=$(stat -c %s "$stream")
for cut in 3 17 1000 $((size / 3)) $((size / 2 + 1)) $((size - 2)); do
	rm -rf cut$cut.hwt
	cp -r $base.hwt cut$cut.hwt
	truncate -s "$cut" cut$cut.hwt/streams/$(basename "$stream")
	compare cut$cut
done
# The last stream of threads, whose layout holds the counts of the
# threads before it: damaged there, it goes to libipt, and what it counted
# in the layout before it gave up is taken back.
flipped later vg_threads "$(ls vg_threads.hwt/streams/*.pt | tail -1)" 12 977 5
[ "$taken_back_total" -gt 0 ] || fail "no stream's counts were taken back out of a layout"
echo "PASS: $compared bundles, $clean_edge clean streams by the edge decoder" \
	"($clean_fallbacks handed to libipt), all profiles and warnings equal;" \
	"split at PSBs: $parts_total parts decoded on threads of their own ($clean_parts in clean" \
	"bundles), $redecoded_total decoded again, $split_off_total split off for idle threads," \
	"-j2 and -j4 equal to -j1; $taken_back_total streams walked again to take counts back"
