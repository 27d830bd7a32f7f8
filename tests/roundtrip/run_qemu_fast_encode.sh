#!/bin/sh
# The QEMU unit's one-pass encoder of plain block runs (collector/qemu/vcpu.c,
# encode_pt_run) against its block-by-block path (fast_encode=off): the same
# run must give the same streams, byte for byte. QEMU's random seed is fixed
# (-seed), so the guest's AT_RANDOM bytes, and the branches that depend on
# them, are the same in both runs; a small PSB period puts sync points and
# buffer drains in the middle of the runs.
# usage: run_qemu_fast_encode.sh PLUGIN WORK_DIR PROGRAM...
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

# record NAME OPTIONS PROGRAM: streams of one run into $work/NAME.pt
record() {
	dir=$work/$1
	mkdir -p "$dir/streams" "$dir/sideband" "$dir/blocks" || exit 1
	"$qemu" -seed 1 -plugin "$plugin,bundle=$dir,psb_period=256$2" "$3" >"$dir.out" 2>"$dir.err" ||
		fail "$3 under QEMU with '$2': exit status $? ($(cat "$dir.err"))"
	n=$(ls "$dir/streams" | wc -l)
	[ "$n" -eq 1 ] || fail "$3 with '$2': $n streams, not 1"
	cp "$dir/streams/"* "$dir.pt"
}

for prog in "$@"; do
	name=$(basename "$prog")
	record "$name.fast" "" "$prog"
	record "$name.ref" ",fast_encode=off" "$prog"
	size=$(wc -c <"$work/$name.ref.pt")
	# The run must say something: more than the PSB+ the stream starts with.
	[ "$size" -gt 1024 ] || fail "$name: only $size bytes of trace"
	cmp "$work/$name.ref.pt" "$work/$name.fast.pt" ||
		fail "$name: the one-pass encoder wrote other packets than the block-by-block path"
	echo "$name: $size bytes, the same"
done
echo PASS
