#!/bin/sh
# The QEMU unit's address filter (--unit qemu --filter IMAGE): only the
# image's blocks are traced, with TIP.PGD where a branch leaves it and
# TIP.PGE where one comes back (from libc, ld.so, the unwinder, a signal).
# For each program: libipt decodes the filtered streams to exactly the blocks
# the unit logged; every instruction of the filtered profile is the image's;
# and the image's instruction counts, branches and calls are those of the
# same run unfiltered (decoded with HWT_DECODER=check, the edge decoder
# checked against libipt).
# usage: run_qemu_filter.sh BUILD_DIR WORK_DIR IMAGE PROGRAM ARGS...
# Exits 77 (skipped) without qemu-x86_64.
set -u
build=$1 work=$2 image=$3
shift 3
hwt=$build/bin/hwt
check=$build/tests/roundtrip/roundtrip_check
tool=$build/tests/decode/profile_tool
command -v qemu-x86_64 >/dev/null || { echo "SKIP: qemu-x86_64 not found"; exit 77; }
. "$(dirname "$0")/../work_dir.sh"
hwt_test_work_dir "$work"
mkdir -p "$work" || exit 1

fail() {
	echo "FAIL: $*"
	exit 1
}

# The lines "IMAGE-PATH offset counts..." of a profile's instructions.
insns() {
	"$tool" insns "$1" | awk '/^image /{img=$2; next} {print img, $0}'
}

for run in all filtered; do
	opts=
	[ $run = filtered ] && opts="--filter $image"
	"$hwt" record -q --unit qemu --debug-blocks $opts -o "$work/$run" -- "$@" \
		>"$work/$run.out" 2>"$work/$run.err" || fail "hwt record $opts: status $? ($(cat "$work/$run.err"))"
	HWT_DECODER=check "$tool" report "$work/$run" -o "$work/$run.profile" 2>"$work/$run.report" ||
		fail "report of the $run run: $(cat "$work/$run.report")"
	insns "$work/$run.profile" >"$work/$run.insns" || fail "profile_tool insns"
done
"$check" "$work/filtered" >"$work/check.out" 2>&1 ||
	fail "the filtered streams do not decode to the logged blocks: $(cat "$work/check.out")"
ours=$(awk -v img="$image" '{n = split($1, p, "/")} p[n] == img' "$work/filtered.insns" | wc -l)
others=$(awk -v img="$image" '{n = split($1, p, "/")} p[n] != img' "$work/filtered.insns" | wc -l)
[ "$ours" -gt 0 ] || fail "no instruction of $image in the filtered profile"
[ "$others" -eq 0 ] || fail "$others instructions of other images in the filtered profile"
awk -v img="$image" '{n = split($1, p, "/")} p[n] == img' "$work/all.insns" >"$work/all.image"
awk -v img="$image" '{n = split($1, p, "/")} p[n] == img' "$work/filtered.insns" >"$work/filtered.image"
cmp "$work/all.image" "$work/filtered.image" >/dev/null ||
	fail "$image's profile differs filtered: $(diff "$work/all.image" "$work/filtered.image" | head -5)"
all=$(cat "$work/all/streams/"* | wc -c)
filtered=$(cat "$work/filtered/streams/"* | wc -c)
echo "$image: $ours instructions, the same filtered; trace bytes $all unfiltered, $filtered filtered"
echo PASS
