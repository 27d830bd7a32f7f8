#!/bin/sh
# The Valgrind tool leaves blocks that write no packet (direct jumps and
# calls, straight-line code) without instrumentation, and resumes tracing
# (TIP.PGE) where the scheduler resumes a thread rather than at the first
# logged block (collector/valgrind/instrument.c, thread.c). With
# --debug-blocks every block is still logged, as before. Both recordings of
# the same program must decode without error to the same lcov and the same
# profile of the program's own image: a TIP.PGE at a later block
# than the one the thread resumed at would lose that block's counts (a
# signal handler, the code after a system call). Not the streams nor
# libc's counts: --debug-blocks changes what libc sees (a string in its
# start-up that strrchr walks).
# usage: run_valgrind_unlogged.sh HWT WORK_DIR PROGRAM:STATUS...
set -u
hwt=$1 work=$2
shift 2
. "$(dirname "$0")/../work_dir.sh"
hwt_test_work_dir "$work"
mkdir -p "$work" || exit 1

fail() {
	echo "FAIL: $*"
	exit 1
}

for entry in "$@"; do
	prog=${entry%:*} expected=${entry##*:}
	name=$(basename "$prog")
	for side in all unlogged; do
		opt=
		[ $side = all ] && opt=--debug-blocks
		"$hwt" record -q --unit valgrind $opt -o "$work/$name.$side" -- "$prog" \
			>"$work/$name.$side.out" 2>"$work/$name.$side.err"
		status=$?
		[ "$status" = "$expected" ] ||
			fail "$name ($side): exit status $status, expected $expected: $(cat "$work/$name.$side.err")"
		for fmt in lcov profile; do
			"$hwt" report "$fmt" -q -o "$work/$name.$side.$fmt" "$work/$name.$side" \
				2>>"$work/$name.$side.err" ||
				fail "$name ($side): hwt report $fmt: exit status $?: $(cat "$work/$name.$side.err")"
		done
		# The program's image, by its path (the order of images is the
		# order the unit mapped them: the preloaded library may come first).
		image=$(awk -v p="$prog" '$1 == "image" && $NF == p { print $2; exit }' \
			"$work/$name.$side.profile")
		[ -n "$image" ] || fail "$name ($side): the profile has no image $prog"
		grep "^block $image " "$work/$name.$side.profile" >"$work/$name.$side.blocks"
	done
	# The run must say something: more than the PSB+ a stream starts with.
	bytes=$(cat "$work/$name.unlogged"/streams/* | wc -c)
	[ "$bytes" -gt 4096 ] || fail "$name: only $bytes bytes of trace"
	[ -s "$work/$name.unlogged.lcov" ] || fail "$name: empty lcov report"
	[ -s "$work/$name.unlogged.blocks" ] || fail "$name: no block of the program in its profile"
	for what in lcov blocks; do
		cmp -s "$work/$name.all.$what" "$work/$name.unlogged.$what" ||
			fail "$name: the $what differ with and without every block logged"
	done
	echo "$name: $bytes bytes of trace, $(wc -l <"$work/$name.unlogged.blocks") blocks of the program, the same"
done
echo PASS
