#!/bin/sh
# The QEMU unit's ways of encoding (collector/qemu/vcpu.c) against its
# reference, block by block on the vCPU's own thread (fast_encode=off,
# async_encode=off): the one-pass encoder of plain block runs
# (encode_pt_run), and the encoder thread that takes full logs while the
# guest fills the other one (here a log every chunk of 2048 blocks, so that
# small programs hand many over). The same run must give the same streams,
# byte for byte. QEMU's random seed is fixed (-seed) and the environment is
# the same (env -i), so the guest's AT_RANDOM bytes, its stack and the
# branches that depend on them are the same in every run; a small PSB
# period puts sync points and buffer drains in the middle of the runs.
# usage: run_qemu_encoders.sh PLUGIN WORK_DIR PROGRAM...
# Exits 77 (skipped) without qemu-x86_64.
set -u
plugin=$1 work=$2
shift 2
qemu=$(command -v qemu-x86_64) || { echo "SKIP: qemu-x86_64 not found"; exit 77; }
. "$(dirname "$0")/../work_dir.sh"
hwt_test_work_dir "$work"

fail() {
	echo "FAIL: $*"
	exit 1
}

# record NAME OPTIONS PROGRAM: the streams of one run, by thread in the
# order the threads were made, into $work/NAME.pt
record() {
	dir=$work/$1
	mkdir -p "$dir/streams" "$dir/sideband" "$dir/blocks" || exit 1
	env -i PATH=/usr/bin:/bin "$qemu" -seed 1 -plugin "$plugin,bundle=$dir,psb_period=256$2" "$3" \
		>"$dir.out" 2>"$dir.err" ||
		fail "$3 under QEMU with '$2': exit status $? ($(cat "$dir.err"))"
	n=$(ls "$dir/streams" | wc -l)
	[ "$n" -ge 1 ] || fail "$3 with '$2': no stream"
	# <pid>.<gen>-<tid>.pt: thread ids grow in the order the threads start.
	ls "$dir/streams" | sort -t- -k2 -n | sed "s|^|$dir/streams/|" | xargs cat >"$dir.pt"
	echo "$n" >"$dir.count"
}

for prog in "$@"; do
	name=$(basename "$prog")
	record "$name.ref" ",fast_encode=off,async_encode=off" "$prog"
	record "$name.fast" ",async_encode=off" "$prog"
	record "$name.thread" ",async_chunks=1" "$prog"
	size=$(wc -c <"$work/$name.ref.pt")
	# The run must say something: more than the PSB+ the stream starts with.
	[ "$size" -gt 1024 ] || fail "$name: only $size bytes of trace"
	cmp "$work/$name.ref.count" "$work/$name.thread.count" >/dev/null ||
		fail "$name: $(cat "$work/$name.ref.count") streams block by block, $(cat "$work/$name.thread.count") with the encoder thread"
	cmp "$work/$name.ref.pt" "$work/$name.fast.pt" ||
		fail "$name: the one-pass encoder wrote other packets than the block-by-block path"
	cmp "$work/$name.ref.pt" "$work/$name.thread.pt" ||
		fail "$name: the encoder thread wrote other packets than the vCPU's own thread"
	echo "$name: $size bytes in $(cat "$work/$name.ref.count") streams, the same three ways"
done
echo PASS
